import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { Counter, type Registry } from 'prom-client';
import { ApiError, invalidParam } from '../errors.ts';
import { MAX_BODY_BYTES } from '../http/body.ts';
import { jsonDepthExceeds } from '../http/json-depth.ts';
import { backendUnavailable } from '../backend/client.ts';
import type { ProxyConfig } from '../config.ts';
import { CACHE_POLICIES, SMALL_BODY_LIMIT, type Operation } from '../routes/operation.ts';
import { checkAnswer, checkRequest, type ContractViolation } from './contract-checks.ts';
import type { ContractStore } from './contract-store.ts';
import { callUpstream, HOP_BY_HOP, UpstreamFault, type UpstreamResponse } from './upstream.ts';

/**
 * The contract guard's /v1 (issue 33, docs/contract-guard.md): every operation of the contract registered at its own
 * path, forwarding to the upstream instead of calling backend-sim. The request is checked, forwarded (re-signed with
 * the upstream key, or untouched in pass-through mode), the answer checked and sent back as the upstream wrote it.
 * Violations go on the request's journal entry (its detail), into `gateway_contract_violations_total`, nowhere else;
 * upstream failures become the spec's 503/504 and are journaled as faults.
 */

/** How many violations one journal entry lists (its detail is bounded); the rest are counted. */
export const VIOLATIONS_PER_ENTRY = 8;

/** The headers the envelope plugin sets on every answer: an upstream answer replaces them with its own. */
const OWN_HEADERS = ['x-api-version', 'x-api-release', 'x-content-type-options', 'cache-control', 'x-request-id'];

export interface ProxyDeps {
  proxy: ProxyConfig;
  /** The per-operation-and-rule summary (migration 027) the Contract screen and `proxy report` read. */
  store?: ContractStore;
  /** The gateway's metrics registry (server/metrics): the violations' counter goes there. */
  registry?: Registry;
  now: () => number;
}

/** The journal entry's detail of a proxied call (server/audit/journal-entries.ts bounds and redacts it). */
export interface ProxyDetail {
  proxy: { mode: ProxyConfig['mode']; upstream_request_id?: string; upstream_status?: number };
  contract_violations?: ContractViolation[];
  contract_violations_omitted?: number;
  upstream_fault?: { kind: string; cause: string };
}

export function registerProxyOperations(app: FastifyInstance, operations: Operation[], deps: ProxyDeps): void {
  const { proxy } = deps;
  const base = new URL(`${proxy.upstream}/`);
  const counter = new Counter({
    name: 'gateway_contract_violations_total',
    help: 'Contract violations the contract guard (npm run proxy) saw, by operation id and rule (docs/contract-guard.md).',
    labelNames: ['operation', 'rule'],
    registers: deps.registry ? [deps.registry] : [],
  });
  const record = (request: FastifyRequest, detail: ProxyDetail, violations: ContractViolation[]) => {
    for (const v of violations) counter.inc({ operation: v.operation, rule: v.rule });
    if (violations.length > 0) {
      detail.contract_violations = violations.slice(0, VIOLATIONS_PER_ENTRY);
      if (violations.length > VIOLATIONS_PER_ENTRY)
        detail.contract_violations_omitted = violations.length - VIOLATIONS_PER_ENTRY;
    }
    request.auditDetail = detail as unknown as Record<string, unknown>;
    deps.store?.record(violations, request.id, new Date(deps.now()).toISOString());
  };

  for (const operation of operations) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const detail: ProxyDetail = { proxy: { mode: proxy.mode } };
      const rawBody = request.rawBody ?? Buffer.alloc(0);
      const parsed = request.body !== undefined ? { body: request.body, notJson: false } : parseBody(rawBody);
      const requestViolations = checkRequest(operation, {
        method: request.method,
        headers: request.headers,
        params: request.params,
        query: request.query,
        rawBody,
        body: parsed.body,
        bodyNotJson: parsed.notJson,
        signingHeaders: proxy.mode === 'pass-through',
      });
      if (proxy.strict && requestViolations.length > 0) {
        record(request, detail, requestViolations);
        throw strictRefusal(requestViolations);
      }
      let answer: UpstreamResponse;
      try {
        answer = await callUpstream({
          base,
          method: request.method,
          pathAndQuery: request.raw.url ?? request.url,
          headers: request.headers,
          body: rawBody,
          timeoutMs: proxy.timeoutMs,
          resign:
            proxy.mode === 'resign' ? { apiKey: proxy.apiKey!, apiSecret: proxy.apiSecret!, now: deps.now } : undefined,
        });
      } catch (error) {
        const fault = error instanceof UpstreamFault ? error : new UpstreamFault('connection', 'ERROR');
        detail.upstream_fault = { kind: fault.kind, cause: fault.cause_ };
        record(request, detail, requestViolations);
        throw faultError(fault);
      }
      detail.proxy.upstream_status = answer.status;
      let body: unknown;
      if (answer.status !== 302 || answer.body.length > 0) {
        const json = parseAnswer(answer.body);
        if (json.notJson) {
          detail.upstream_fault = {
            kind: 'invalid_json',
            cause: `${answer.body.length} bytes, status ${answer.status}`,
          };
          record(request, detail, requestViolations);
          throw faultError(new UpstreamFault('invalid_json', 'not JSON'));
        }
        body = json.body;
      }
      const upstreamId = (body as { meta?: { request_id?: unknown } } | undefined)?.meta?.request_id;
      if (typeof upstreamId === 'string' && /^[0-9a-f]{1,64}$/.test(upstreamId))
        detail.proxy.upstream_request_id = upstreamId;
      const answerViolations = checkAnswer(operation, { status: answer.status, headers: answer.headers, body });
      record(request, detail, [...requestViolations, ...answerViolations]);
      return relay(request, reply, answer);
    };
    app.route({
      method: operation.method,
      url: operation.url,
      // A body over the operation's limit is reported, or refused with its 413 in strict mode.
      bodyLimit: proxy.strict ? (operation.bodyLimit ?? SMALL_BODY_LIMIT) : MAX_BODY_BYTES,
      config: {
        // Re-sign mode verifies the caller's appliance key; which scopes the call needs is the upstream key's matter.
        scope: null,
        idempotent: false,
        cacheControl: CACHE_POLICIES[operation.cache ?? 'no-store'],
        operation,
      },
      handler,
    });
  }
}

/** The upstream's answer as it came: its status, its end-to-end headers, its bytes. */
function relay(request: FastifyRequest, reply: FastifyReply, answer: UpstreamResponse): FastifyReply {
  for (const name of OWN_HEADERS) reply.removeHeader(name);
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'content-length' || name === 'date') continue;
    reply.header(name, value);
  }
  const errorCode = (tryCode(answer) ?? null) as FastifyRequest['errorCode'];
  if (answer.status >= 400) request.errorCode = errorCode;
  reply.status(answer.status);
  if (answer.body.length === 0) return reply.send();
  // JSON text as a string, so the journal keeps (and redacts) an error's or a write's answer like the gateway's own.
  const text = answer.body.toString('utf8');
  return reply.send(Buffer.byteLength(text) === answer.body.length ? text : answer.body);
}

function tryCode(answer: UpstreamResponse): string | undefined {
  if (answer.status < 400) return undefined;
  try {
    const code = JSON.parse(answer.body.toString('utf8'))?.error?.code;
    return typeof code === 'string' ? code.slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}

const JSON_OPTIONS = { protoAction: 'remove', constructorAction: 'remove' } as const;

function parseBody(raw: Buffer): { body: unknown; notJson: boolean } {
  if (raw.length === 0) return { body: undefined, notJson: false };
  if (jsonDepthExceeds(raw)) return { body: undefined, notJson: true };
  try {
    return { body: sjson.parse(raw.toString('utf8'), null, JSON_OPTIONS), notJson: false };
  } catch {
    return { body: undefined, notJson: true };
  }
}

function parseAnswer(raw: Buffer): { body: unknown; notJson: boolean } {
  if (raw.length === 0) return { body: undefined, notJson: true };
  try {
    return { body: sjson.parse(raw.toString('utf8'), null, JSON_OPTIONS), notJson: false };
  } catch {
    return { body: undefined, notJson: true };
  }
}

/** Strict mode: the contract's own 400, one `lista` item per violated rule. */
function strictRefusal(violations: ContractViolation[]): ApiError {
  // `field` as the gateway names a header (`Idempotency-Key`), else the contract's path of the rule.
  const lista = violations.map((v) => ({ field: v.rule.replace(/^request\.headers\./, ''), msg: v.seen }));
  const tooLarge = violations.find((v) => v.rule === 'request.body.x-max-body-bytes');
  if (tooLarge)
    return new ApiError(
      'VAL_INVALID_PARAM',
      'Corpo excede o limite da operacao.',
      { field: 'body', lista },
      { status: 413 },
    );
  return invalidParam(
    lista[0].field,
    lista.length === 1 ? `Parametro invalido: ${lista[0].field}.` : `${lista.length} campos precisam de atencao.`,
    { lista },
  );
}

/** Spec § backend mapping: no answer in time → 504 SERVICE_TIMEOUT; any other failure → 503 SERVICE_UNAVAILABLE. */
function faultError(fault: UpstreamFault): ApiError {
  if (fault.kind === 'timeout') return new ApiError('SERVICE_TIMEOUT', 'O gateway de destino nao respondeu a tempo.');
  return backendUnavailable('Gateway de destino indisponivel. Tente novamente.');
}
