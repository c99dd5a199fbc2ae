import type { Readable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { Pool } from 'undici';
import { z } from 'zod';
import { BACKEND_INTERNAL_OUTCOME, isBackendErrorCode, type BackendInternalCode } from '../../contracts/errors.ts';
import { INTERNAL_HEADERS } from '../../contracts/backend/headers.ts';
import { contractOf } from '../../shared-node/contract-stamp.ts';
import { ApiError } from '../errors.ts';
import { RelayedJson } from '../http/schemas.ts';

export interface BackendCallContext {
  chaveId: number;
  medicoFiltroId: number;
  requestId: string;
  /** Writes under an Idempotency-Key (server/idempotency/idempotency-plugin.ts `backendIdempotency`). */
  idempotencyToken?: string;
  /** Called when backend-sim answers from its record of that token instead of executing. */
  onReplay?: () => void;
  /** Told the hop's seconds, answered or not (the operation's histogram of server/metrics). */
  timing?: { observe(seconds: number): void };
  /** W3C trace context of the call's client span (tracing on: server/tracing/gateway-tracing.ts); backend-sim continues it. */
  traceparent?: string;
}

export type BackendQuery = Record<string, string | number | boolean | Array<string | number> | undefined | null>;

export interface BackendCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** Path below the backend root, e.g. `/tenants/demo/pacientes`. */
  path: string;
  query?: BackendQuery;
  body?: unknown;
  context?: BackendCallContext;
}

export interface BackendResult<T = unknown> {
  status: number;
  data: T;
  meta: Record<string, unknown>;
}

/**
 * backend-sim answered something the contract does not allow (an error code not in
 * contracts/errors.ts, or `data` its schema refuses). The integrator gets the spec's 503; the
 * violation is logged and counted, and the test stack fails any test file that caused one.
 */
export class BackendContractError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendContractError';
  }
}

/**
 * `Retry-After` of every 503 the backend causes (a refused or dropped connection, invalid JSON, an unclassified
 * failure, an injected fault): the spec calls it usually transient; a client waits this long before retrying.
 */
export const BACKEND_RETRY_AFTER_SECONDS = 5;
const retryLater = { headers: { 'retry-after': String(BACKEND_RETRY_AFTER_SECONDS) } };

/** The 503 of a backend failure, with `Retry-After`; `message` when the failure has more to say than "try again". */
export const backendUnavailable = (message = 'Servico temporariamente indisponivel. Tente novamente.'): ApiError =>
  new ApiError('SERVICE_UNAVAILABLE', message, null, retryLater);

const INTERNAL_MESSAGES: Record<BackendInternalCode, string> = {
  INTERNAL_AUTH_FAILED: 'Servico temporariamente indisponivel. Tente novamente.',
  TENANT_NOT_FOUND: 'Falha ao abrir o ambiente da clinica.',
  TENANT_OPEN_FAILED: 'Falha ao abrir o ambiente da clinica.',
  ROUTE_NOT_FOUND: 'Servico temporariamente indisponivel. Tente novamente.',
  METHOD_NOT_ALLOWED: 'Servico temporariamente indisponivel. Tente novamente.',
  INTERNAL_ERROR: 'Servico temporariamente indisponivel. Tente novamente.',
  FAULT_INJECTED: 'Servico temporariamente indisponivel. Tente novamente.',
  TENANT_BUSY: 'A clinica esta sendo restaurada de um snapshot. Tente novamente em instantes.',
};

/**
 * What the gateway's routes and services need of backend-sim: one call, its `data` parsed by the
 * caller's schema. BackendClient is the real one; in-process tests hand buildApp a fake.
 */
export interface Backend {
  call<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S>>>;
  /**
   * A read whose `data` the caller answers as it is: the same contract as `call`, but `data` may come back as the
   * backend's JSON text (RelayedJson) when the backend stamped it with `schema` (docs/decisions.md HOP1).
   */
  relay<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S> | RelayedJson>>;
  /**
   * A call whose body or answer is bytes, not JSON (a snapshot archive, issue 30): `body` streams up, a 2xx
   * answer streams back as it arrives; an error answer is read and mapped as `call` maps it.
   */
  transfer(call: BackendTransfer): Promise<{ status: number; headers: Record<string, unknown>; body: Readable }>;
}

export interface BackendTransfer {
  method: 'GET' | 'POST';
  path: string;
  query?: BackendQuery;
  body?: Readable;
  contentType?: string;
  /** Longer than the JSON calls' timeout: an archive of a large clinic takes a while each way. */
  timeoutMs: number;
}

/** Stamped answers checked in full: the first one, then one in this many (docs/decisions.md HOP1). */
export const VERIFY_ONE_STAMPED_IN = 64;

/** What came back from backend-sim, before its contract is checked. */
interface Exchange {
  status: number;
  text: string;
  /** `x-contract-schema`: the stamp of the schema `data` was parsed with, when the backend sent one. */
  stamp: string | undefined;
}

/**
 * The gateway's only way to the clinic data. Every answer is checked against the contract:
 * `data` is parsed by the caller's zod schema (never cast), or, relayed, stamped with that schema by a
 * backend that parsed it so (checked in full on a sample); error codes are mapped through
 * contracts/errors.ts. Transport failures follow the spec: refused/dropped connection or invalid
 * JSON → 503; no answer in time → 504.
 */
export class BackendClient implements Backend {
  private readonly pool: Pool;
  /** Contract violations seen since start (message per violation). */
  readonly contractViolations: string[] = [];
  /**
   * Stamped answers checked in full: 1 checks every one (the test stack, so a test that meets a violation
   * fails); n the first and every nth after it.
   */
  verifyOneStampedIn = VERIFY_ONE_STAMPED_IN;
  /**
   * Cleared by the first contract violation, until the gateway restarts: from then on every answer is parsed in
   * full (a test clears it to compare both paths).
   */
  trustsStamps = true;
  private stampedSeen = 0;
  /**
   * Successful reads through `relay`, by how their `data` went: `relayed` as the backend's text, `verified` the
   * same after a full check, `parsed` in full (unstamped, another schema's stamp, or stamps not trusted).
   */
  readonly relays = { relayed: 0, verified: 0, parsed: 0 };

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {
    this.pool = new Pool(baseUrl, { connections: 64, pipelining: 1, keepAliveTimeout: 10_000 });
  }

  async call<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S>>> {
    return this.checked(call, schema, await this.exchange(call));
  }

  async relay<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S> | RelayedJson>> {
    const answer = await this.exchange(call);
    const contract =
      answer.stamp !== undefined && answer.status === 200 && this.trustsStamps ? contractOf(schema) : null;
    const parts = contract !== null && contract.stamp === answer.stamp ? splitStamped(answer.text) : null;
    if (!parts) {
      const result = this.checked(call, schema, answer);
      this.relays.parsed++;
      return result;
    }
    if (this.stampedSeen++ % this.verifyOneStampedIn === 0) {
      const { data } = this.checked(call, schema, answer);
      // Parsed by the schema it names, the backend's `data` is the schema's own output: nothing stripped, nothing changed.
      if (!isDeepStrictEqual(data, (JSON.parse(answer.text) as { data: unknown }).data)) {
        throw this.violation(`${call.method} ${call.path}: stamped data is not what its schema makes of it`);
      }
      this.relays.verified++;
    } else {
      this.relays.relayed++;
    }
    return { status: answer.status, data: new RelayedJson(parts.data), meta: parts.meta };
  }

  async transfer(call: BackendTransfer): Promise<{ status: number; headers: Record<string, unknown>; body: Readable }> {
    const headers: Record<string, string> = { [INTERNAL_HEADERS.token]: this.token };
    if (call.body) headers['content-type'] = call.contentType ?? 'application/octet-stream';
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await this.pool.request({
        method: call.method,
        path: call.path + buildQuery(call.query),
        headers,
        body: call.body,
        headersTimeout: call.timeoutMs,
        bodyTimeout: call.timeoutMs,
      });
    } catch (error) {
      if (isTimeout(error)) throw new ApiError('SERVICE_TIMEOUT', 'O sistema da clinica nao respondeu a tempo.');
      // The caller's own refusal of the body it streamed (too large, cut off) is that refusal, not a backend failure.
      if (error instanceof ApiError) throw error;
      throw backendUnavailable();
    }
    if (response.statusCode >= 200 && response.statusCode < 300)
      return { status: response.statusCode, headers: response.headers, body: response.body };
    const text = await response.body.text();
    // An error answer is JSON like any other: mapped (or refused as a contract violation) the same way.
    this.checked({ method: call.method, path: call.path }, z.unknown(), {
      status: response.statusCode,
      text,
      stamp: undefined,
    });
    throw backendUnavailable();
  }

  private async exchange(call: BackendCall): Promise<Exchange> {
    const headers: Record<string, string> = { [INTERNAL_HEADERS.token]: this.token, accept: 'application/json' };
    if (call.context) {
      headers[INTERNAL_HEADERS.chaveId] = String(call.context.chaveId);
      headers[INTERNAL_HEADERS.medicoFiltroId] = String(call.context.medicoFiltroId);
      headers[INTERNAL_HEADERS.requestId] = call.context.requestId;
      if (call.context.idempotencyToken) headers[INTERNAL_HEADERS.idempotencyToken] = call.context.idempotencyToken;
      if (call.context.traceparent) headers[INTERNAL_HEADERS.traceparent] = call.context.traceparent;
    }
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const timing = call.context?.timing;
    const started = timing ? performance.now() : 0;
    try {
      const response = await this.pool.request({
        method: call.method,
        path: call.path + buildQuery(call.query),
        headers,
        body,
        // Undici's own timers (no AbortSignal and timer per call): no header, or a body that stalls, within the timeout → 504.
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      if (response.headers[INTERNAL_HEADERS.idempotentReplay] === 'true') call.context?.onReplay?.();
      const stamp = response.headers[INTERNAL_HEADERS.contractSchema];
      return {
        status: response.statusCode,
        text: await response.body.text(),
        stamp: typeof stamp === 'string' ? stamp : undefined,
      };
    } catch (error) {
      if (isTimeout(error)) throw new ApiError('SERVICE_TIMEOUT', 'O sistema da clinica nao respondeu a tempo.');
      throw backendUnavailable();
    } finally {
      timing?.observe((performance.now() - started) / 1000);
    }
  }

  /** The answer parsed in full: `data` by the caller's schema, an error by the contract's codes. */
  private checked<S extends z.ZodType>(
    call: BackendCall,
    schema: S,
    { status, text }: Exchange,
  ): BackendResult<z.output<S>> {
    let parsed: {
      data?: unknown;
      meta?: Record<string, unknown>;
      error?: { code?: unknown; message?: unknown; details?: unknown };
    };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw backendUnavailable();
    }
    if (parsed === null || typeof parsed !== 'object') throw backendUnavailable();
    if (status >= 200 && status < 300) {
      if (!('data' in parsed)) throw backendUnavailable();
      const checked = schema.safeParse(parsed.data);
      if (!checked.success) {
        throw this.violation(`${call.method} ${call.path}: data does not match its schema: ${checked.error.message}`);
      }
      return { status, data: checked.data, meta: parsed.meta ?? {} };
    }
    const code = parsed.error?.code;
    if (!isBackendErrorCode(code))
      throw this.violation(
        `${call.method} ${call.path}: unknown backend error code ${JSON.stringify(code)} (status ${status})`,
      );
    if (Object.hasOwn(BACKEND_INTERNAL_OUTCOME, code)) {
      const internal = code as BackendInternalCode;
      const becomes = BACKEND_INTERNAL_OUTCOME[internal].becomes;
      throw new ApiError(
        becomes,
        INTERNAL_MESSAGES[internal],
        null,
        becomes === 'SERVICE_UNAVAILABLE' ? retryLater : {},
      );
    }
    const details = parsed.error?.details;
    throw new ApiError(
      code as Exclude<typeof code, BackendInternalCode>,
      typeof parsed.error?.message === 'string' ? parsed.error.message : 'Requisicao recusada pelo sistema da clinica.',
      details && typeof details === 'object' ? (details as Record<string, unknown>) : null,
    );
  }

  private violation(message: string): BackendContractError {
    this.contractViolations.push(message);
    // A backend that broke the contract is not trusted with stamps again until the gateway restarts.
    this.trustsStamps = false;
    return new BackendContractError(message);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

const META_FIRST = '{"meta":';
const THEN_DATA = ',"data":';

/**
 * `meta` (parsed) and the text of `data` of a stamped answer, written `{"meta":{…},"data":…}`; null for any other
 * layout (then the answer is parsed in full). Only `meta` is scanned: to its closing brace, outside strings.
 */
export function splitStamped(text: string): { meta: Record<string, unknown>; data: string } | null {
  if (!text.startsWith(META_FIRST) || text.charCodeAt(text.length - 1) !== 0x7d) return null;
  let depth = 0;
  let inString = false;
  let end = -1;
  for (let i = META_FIRST.length; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) {
        end = i + 1;
        break;
      }
    } else if (depth === 0) return null;
  }
  if (end < 0 || !text.startsWith(THEN_DATA, end)) return null;
  let meta: unknown;
  try {
    meta = JSON.parse(text.slice(META_FIRST.length, end));
  } catch {
    return null;
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return null;
  return { meta: meta as Record<string, unknown>, data: text.slice(end + THEN_DATA.length, -1) };
}

/** Query values as backend-sim reads them: booleans as `1`/`0`, arrays repeated, absent dropped. */
export function buildQuery(query: BackendCall['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      params.append(name, typeof item === 'boolean' ? (item ? '1' : '0') : String(item));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function isTimeout(error: unknown): boolean {
  const e = error as { code?: string; name?: string };
  return (
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT' ||
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError'
  );
}
