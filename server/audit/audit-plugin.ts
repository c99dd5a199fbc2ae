import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_REDACTED_KEYS, keySet, redact, REDACTED } from '../http/redact.ts';
import type { AuditRecord, AuditWriter } from './audit-writer.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/json-depth.ts';
import '../http/request-context.ts';

const AUDIT_KEYS = keySet(AUDIT_REDACTED_KEYS);
/**
 * Responses add two keys of the development-mode signature explanation (server/auth/signature-debug.ts):
 * they echo the signed request as sent, raw body and unredacted query included.
 */
const RESPONSE_KEYS = keySet([...AUDIT_REDACTED_KEYS, 'payload_assinado', 'path_and_query']);
/** Long strings (inline base64 files) are summarised: the audit log keeps metadata, not files. */
const MAX_AUDITED_STRING = 512;
const MAX_AUDITED_BODY_BYTES = 64 * 1024;

export interface AuditPluginOptions {
  writer: AuditWriter;
  /** Paths not audited here (console assets; the console API audits its own actions). */
  skipPrefixes: string[];
}

/**
 * Records every request that reaches the gateway, authentication failures included. The entry is
 * committed before the response is sent (onSend), so an acknowledged request is never missing from
 * the log, even after a SIGKILL.
 */
export default fp<AuditPluginOptions>(
  async function auditPlugin(app: FastifyInstance, { writer, skipPrefixes }) {
    // Callback style: the response continues when the entry's commit calls back (no promise per request).
    app.addHook('onSend', (request, reply, payload, done) => {
      const url = request.raw.url ?? request.url;
      if (skipPrefixes.some((prefix) => url.startsWith(prefix))) return done(null, payload);
      let entry: AuditRecord;
      try {
        entry = auditEntry(request, reply.statusCode, url, payload);
      } catch (error) {
        return done(error as Error);
      }
      writer.writeThen(entry, () => done(null, payload));
    });
  },
  { name: 'audit', dependencies: ['envelope'] },
);

/** The audit row of a request; whatever its body, the row is written (a body that cannot be summarised is described instead). */
export function auditEntry(request: FastifyRequest, status: number, url: string, payload?: unknown): AuditRecord {
  const auth = request.auth;
  // A refused signature still names the key its headers presented (resolved before the signature check).
  const presented = auth ? null : request.presentedKey;
  let body: string | null;
  try {
    body = auditedBody(request);
  } catch {
    body = JSON.stringify({ _invalido: 'corpo nao registravel' });
  }
  // A write is an operation that changes data (the idempotent ones); POST /v1/ping only echoes.
  const operation = request.routeOptions?.config?.operation as { idempotent?: boolean } | undefined;
  const response = auditedResponse(request.method, status, payload, operation ? operation.idempotent === true : undefined);
  return {
    request_id: request.id,
    ts: new Date(Date.now() - (performance.now() - request.startedAt)).toISOString(),
    source: 'api',
    tenant_id: auth?.tenantId ?? presented?.tenant?.id ?? null,
    tenant_slug: auth?.tenantSlug ?? presented?.tenant?.slug ?? null,
    chave_id: auth?.chaveId ?? presented?.key.id ?? null,
    operator_id: null,
    method: request.method,
    path: redactQuery(url),
    status,
    error_code: request.errorCode,
    duracao_ms: Math.round(performance.now() - request.startedAt),
    client_ip: request.ip,
    body,
    detail: request.auditDetail ? JSON.stringify(request.auditDetail) : null,
    error_message: response.errorMessage,
    response_body: response.body,
    request_headers: auditedHeaders(request.headers),
  };
}

/** Never stored, not even by name: what signs or authenticates a request. */
const SIGNING_HEADERS = new Set(['x-signature', 'authorization', 'proxy-authorization', 'cookie']);
/** Stored as sent (shortened when long): the public key id, the signed timestamp, transport metadata. */
const SHOWN_HEADERS = new Set([
  'x-api-key', 'x-timestamp', 'idempotency-key', 'content-type', 'content-length', 'user-agent', 'accept',
  'accept-encoding', 'accept-language', 'host', 'origin', 'connection', 'x-request-id', 'x-forwarded-for',
  'x-forwarded-proto', 'traceparent', 'cache-control', 'if-none-match',
]);
const OMITTED_HEADER = '[omitido]';

/**
 * The request headers a support engineer needs, without signing material. An allowlist: any other
 * header is listed by name only (a client may send personal data or a secret in a header of its own).
 */
export function auditedHeaders(headers: FastifyRequest['headers']): string {
  const out: Record<string, string> = {};
  for (const name in headers) {
    if (SIGNING_HEADERS.has(name)) continue;
    if (!SHOWN_HEADERS.has(name)) {
      out[name] = OMITTED_HEADER;
      continue;
    }
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(', ') : String(value ?? '');
    out[name] = text.length > MAX_AUDITED_STRING ? `[omitido: ${text.length} caracteres]` : text;
  }
  return JSON.stringify(out);
}

/**
 * The response envelope as the journal keeps it: for errors (any method) and writes, redacted and
 * shortened like request bodies. Successful reads, and the echo of POST /v1/ping (`changesData`
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
  if (payload.length > MAX_AUDITED_BODY_BYTES) return { errorMessage: null, body: JSON.stringify({ _omitido: `resposta de ${payload.length} caracteres` }) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return { errorMessage: null, body: JSON.stringify({ _invalido: `resposta nao JSON de ${payload.length} caracteres` }) };
  }
  const error = (parsed as { error?: { message?: unknown } } | null)?.error;
  const errorMessage = isError && typeof error?.message === 'string' ? shortenString(error.message) : null;
  return { errorMessage, body: JSON.stringify(redact(parsed, RESPONSE_KEYS, undefined, shortenLeaf)) };
}

const shortenString = (value: string): string => (value.length > MAX_AUDITED_STRING ? `[omitido: ${value.length} caracteres]` : value);

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

/** POST/PATCH bodies after the spec's recursive, case-insensitive redaction; parsed from raw bytes when auth failed first. */
function auditedBody(request: FastifyRequest): string | null {
  if (request.method !== 'POST' && request.method !== 'PATCH') return null;
  let body: unknown = request.body;
  if (body === undefined) {
    const raw = request.rawBody;
    if (!raw || raw.length === 0) return null;
    if (raw.length > MAX_AUDITED_BODY_BYTES) return JSON.stringify({ _omitido: `corpo de ${raw.length} bytes` });
    if (jsonDepthExceeds(raw)) return JSON.stringify({ _invalido: `JSON aninhado alem de ${MAX_JSON_DEPTH} niveis, ${raw.length} bytes` });
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return JSON.stringify({ _invalido: `corpo nao JSON de ${raw.length} bytes` });
    }
  }
  return JSON.stringify(redact(body, AUDIT_KEYS, undefined, shortenLeaf));
}

/** Redaction's leaf mapping: long strings are summarised, other values kept. */
function shortenLeaf(value: unknown): unknown {
  return typeof value === 'string' ? shortenString(value) : value;
}
