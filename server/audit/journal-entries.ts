import type { KeyObject } from 'node:crypto';
import sjson from 'secure-json-parse';
import type { FastifyRequest } from 'fastify';
import { AUDIT_REDACTED_KEYS, keySet, REDACTED } from '../http/redact.ts';
import { jsonDepthExceeds } from '../http/json-depth.ts';
import type { ResolvedKey } from '../keys/keys.service.ts';
import { API_KEY_PATTERN } from '../keys/keys.service.ts';
import type { AuditRecord } from './audit-writer.ts';
import type { JournalClass } from './journal-budget.ts';
import { AUDIT_KEYS, boundedJson, capText, JOURNAL_LIMITS, unparsedBody } from './bounded.ts';
import '../http/request-context.ts';
import { incomingTraceId } from '../../shared-node/traceparent.ts';

/**
 * Responses add two keys of the development-mode signature explanation (server/auth/signature-debug.ts):
 * they echo the signed request as sent, raw body and unredacted query included.
 */
const RESPONSE_KEYS = keySet([...AUDIT_REDACTED_KEYS, 'payload_assinado', 'path_and_query']);
/** Above this, a body refused before parsing is described, never parsed for the journal. */
const MAX_PARSED_FOR_JOURNAL = 64 * 1024;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

declare module 'fastify' {
  interface FastifyRequest {
    /** Journaled in the unattributed groups whatever key it names (the address limiter's 429, a full journal's 503). */
    journalUnattributed: boolean;
  }
}

export interface JournalEntriesOptions {
  /** Keys the journal's digests of unparsed bodies are made with (a subkey of the master key). */
  digestKey: KeyObject;
  /** Resolves an X-API-Key the auth hooks never saw (a signed request to an unknown route). */
  resolveKey?: (apiKey: string) => ResolvedKey | undefined | Promise<ResolvedKey | undefined>;
  /**
   * The request's trace id (tracing on: its request span's, server/tracing/gateway-tracing.ts); by default a valid
   * incoming `traceparent`'s, so a caller's trace can be found in the journal with tracing off too.
   */
  traceId?: (request: FastifyRequest) => string | null;
}

const incomingTraceOf = (request: FastifyRequest): string | null => incomingTraceId(request.headers.traceparent);

/** Who an entry is about, and whether the request proved it. */
interface Attribution {
  journal_class: JournalClass;
  tenant_id: number | null;
  tenant_slug: string | null;
  chave_id: number | null;
}

const UNATTRIBUTED: Attribution = { journal_class: 'unattributed', tenant_id: null, tenant_slug: null, chave_id: null };

/** Builds the journal entry of an API request: attributed, bounded, redacted (issue 19). */
export class JournalEntries {
  private readonly traceId: (request: FastifyRequest) => string | null;

  constructor(private readonly options: JournalEntriesOptions) {
    this.traceId = options.traceId ?? incomingTraceOf;
  }

  /** The audit row of a request; whatever its body, the row is written (a body that cannot be summarised is described instead). */
  of(request: FastifyRequest, status: number, url: string, payload?: unknown): AuditRecord {
    let body: string | null;
    try {
      body = this.body(request);
    } catch {
      body = JSON.stringify({ _invalido: 'corpo nao registravel' });
    }
    // A write is an operation that changes data (the idempotent ones); POST /v1/ping only echoes.
    const operation = request.routeOptions?.config?.operation as { idempotent?: boolean } | undefined;
    const response = auditedResponse(
      request.method,
      status,
      payload,
      operation ? operation.idempotent === true : undefined,
    );
    return {
      request_id: request.id,
      ts: new Date(Date.now() - (performance.now() - request.startedAt)).toISOString(),
      source: 'api',
      ...this.attribution(request),
      operator_id: null,
      method: request.method,
      path: capText(redactQuery(url), JOURNAL_LIMITS.path),
      status,
      error_code: request.errorCode,
      duracao_ms: Math.round(performance.now() - request.startedAt),
      // Undefined once the client's socket is gone, if nothing read it before (a client that gave up on a slow call).
      client_ip: request.ip ?? '',
      body,
      detail: request.auditDetail ? boundedJson(request.auditDetail, AUDIT_KEYS, JOURNAL_LIMITS.detail) : null,
      error_message: response.errorMessage,
      response_body: response.body,
      request_headers: auditedHeaders(request.headers),
      trace_id: this.traceId(request),
    };
  }

  /**
   * Verified: the signature was checked (request.auth). Unverified: the request names an existing key
   * but never proved it holds its secret (revoked, wrong clinic state, timestamp, signature): journaled
   * under that key, so the console's "Calls" of the key explain its failures, yet shed before verified
   * history. Anything else is unattributed noise.
   */
  private attribution(request: FastifyRequest): Attribution {
    // First: a refusal that must not weigh on verified history (a full journal's 503, the address limiter's 429).
    if (request.journalUnattributed) return UNATTRIBUTED;
    const auth = request.auth;
    if (auth)
      return {
        journal_class: 'verified',
        tenant_id: auth.tenantId,
        tenant_slug: auth.tenantSlug,
        chave_id: auth.chaveId,
      };
    const presented = request.presentedKey ?? this.keyFromHeader(request);
    if (!presented) return UNATTRIBUTED;
    return {
      journal_class: 'unverified',
      tenant_id: presented.key.tenant_id,
      tenant_slug: presented.tenant?.slug ?? null,
      chave_id: presented.key.id,
    };
  }

  /**
   * For a request the auth hooks never saw (an unknown route): when its X-API-Key needs an asynchronous
   * lookup (PostgreSQL), a promise to await before `of`, so the entry still names the key.
   */
  keyLookup(request: FastifyRequest): Promise<void> | undefined {
    if (request.auth || request.presentedKey || request.journalUnattributed) return undefined;
    const apiKey = this.presentedHeader(request);
    if (!apiKey) return undefined;
    const found = this.options.resolveKey!(apiKey);
    if (!(found instanceof Promise)) return undefined;
    return found.then(
      (key) => {
        if (key) request.presentedKey = key;
      },
      () => undefined,
    );
  }

  private presentedHeader(request: FastifyRequest): string | undefined {
    const header = request.headers['x-api-key'];
    const apiKey = Array.isArray(header) ? header[0] : header;
    return apiKey && this.options.resolveKey && API_KEY_PATTERN.test(apiKey) ? apiKey : undefined;
  }

  private keyFromHeader(request: FastifyRequest): ResolvedKey | undefined {
    const apiKey = this.presentedHeader(request);
    if (!apiKey) return undefined;
    const found = this.options.resolveKey!(apiKey);
    // Not awaited here (a refusal journaled outside the routes): unattributed unless the key was at hand; a
    // lookup that fails (the database away) only leaves the entry unattributed.
    if (!(found instanceof Promise)) return found;
    found.catch(() => undefined);
    return undefined;
  }

  /**
   * POST/PATCH bodies after the spec's recursive, case-insensitive redaction. A body the gateway parsed
   * is redacted; one refused before parsing is parsed here only when it is small JSON, and otherwise (or
   * when it does not parse) described by size, type and keyed digest: its bytes are never stored.
   */
  private body(request: FastifyRequest): string | null {
    if (request.method !== 'POST' && request.method !== 'PATCH' && request.method !== 'PUT') return null;
    if (request.body !== undefined) return boundedJson(request.body, AUDIT_KEYS);
    const raw = request.rawBody;
    if (!raw || raw.length === 0) return null;
    const type = headerText(request.headers['content-type']);
    if (type !== undefined && JSON_TYPE.test(type) && raw.length <= MAX_PARSED_FOR_JOURNAL && !jsonDepthExceeds(raw)) {
      try {
        return boundedJson(
          sjson.parse(raw.toString('utf8'), null, { protoAction: 'remove', constructorAction: 'remove' }),
          AUDIT_KEYS,
        );
      } catch {
        // Not JSON after all: described below.
      }
    }
    return unparsedBody(raw, type, this.options.digestKey);
  }
}

const headerText = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/** Never stored, not even by name: what signs or authenticates a request. */
const SIGNING_HEADERS = new Set(['x-signature', 'authorization', 'proxy-authorization', 'cookie']);
/** Stored as sent (shortened when long): the public key id, the signed timestamp, transport metadata. */
const SHOWN_HEADERS = new Set([
  'x-api-key',
  'x-timestamp',
  'idempotency-key',
  'content-type',
  'content-length',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'host',
  'origin',
  'connection',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'traceparent',
  'cache-control',
  'if-none-match',
]);
const OMITTED_HEADER = '[omitido]';
/** The headers object's JSON stays within this (every value is already capped). */
const HEADERS_MAX_CHARS = 4096;

/**
 * The request headers a support engineer needs, without signing material. An allowlist: any other
 * header is listed by name only (a client may send personal data or a secret in a header of its own).
 * At most JOURNAL_LIMITS.headers names and HEADERS_MAX_CHARS of JSON; the rest are counted.
 */
export function auditedHeaders(headers: FastifyRequest['headers']): string {
  const out: Record<string, string | number> = {};
  let kept = 0;
  let size = 2;
  let dropped = 0;
  for (const name in headers) {
    if (SIGNING_HEADERS.has(name)) continue;
    let text = OMITTED_HEADER;
    if (SHOWN_HEADERS.has(name)) {
      const value = headers[name];
      text = Array.isArray(value) ? value.join(', ') : String(value ?? '');
      if (text.length > JOURNAL_LIMITS.headerValue) text = `[omitido: ${text.length} caracteres]`;
    }
    const label = capText(name, 64);
    const cost = label.length + text.length + 6;
    if (kept >= JOURNAL_LIMITS.headers || size + cost > HEADERS_MAX_CHARS - 40) {
      dropped += 1;
      continue;
    }
    out[label] = text;
    kept += 1;
    size += cost;
  }
  if (dropped > 0) out._omitidos = dropped;
  return JSON.stringify(out);
}

/**
 * The response envelope as the journal keeps it: for errors (any method) and writes, redacted and
 * bounded like request bodies. Successful reads, and the echo of POST /v1/ping (`changesData`
 * false: it changes nothing and its body is already in the entry), are not copied (the journal keeps what failed and
 * what changed, not the clinic's records), and a redirect never is: its Location is a presigned URL.
 */
export function auditedResponse(
  method: string,
  status: number,
  payload: unknown,
  /** Whether the request changes data; unknown (no operation matched), a write method counts. */
  changesData: boolean = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS',
): { errorMessage: string | null; body: string | null } {
  if (status >= 300 && status < 400) return { errorMessage: null, body: null };
  const isError = status >= 400;
  if (!isError && !changesData) return { errorMessage: null, body: null };
  if (typeof payload !== 'string' || payload.length === 0) return { errorMessage: null, body: null };
  if (payload.length > MAX_PARSED_FOR_JOURNAL)
    return { errorMessage: null, body: JSON.stringify({ _omitido: `resposta de ${payload.length} caracteres` }) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return {
      errorMessage: null,
      body: JSON.stringify({ _invalido: `resposta nao JSON de ${payload.length} caracteres` }),
    };
  }
  const error = (parsed as { error?: { message?: unknown } } | null)?.error;
  const errorMessage =
    isError && typeof error?.message === 'string' ? capText(error.message, JOURNAL_LIMITS.errorMessage) : null;
  return { errorMessage, body: boundedJson(parsed, RESPONSE_KEYS) };
}

/** `?cpf=123…` and every other listed key in the query string become `[REDACTED]`. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // Undecodable name: compared as sent.
      }
      return AUDIT_KEYS.has(name.toLowerCase()) ? `${rawName}=${encodeURIComponent(REDACTED)}` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}
