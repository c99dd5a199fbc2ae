import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_REDACTED_KEYS, keySet, redact, REDACTED } from '../http/redact.ts';
import type { AuditRecord, AuditWriter } from './audit-writer.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/json-depth.ts';
import '../http/request-context.ts';

const AUDIT_KEYS = keySet(AUDIT_REDACTED_KEYS);
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
    app.addHook('onSend', async (request, reply, payload) => {
      const url = request.raw.url ?? request.url;
      if (skipPrefixes.some((prefix) => url.startsWith(prefix))) return payload;
      await writer.writeDurable(auditEntry(request, reply.statusCode, url));
      return payload;
    });
  },
  { name: 'audit', dependencies: ['envelope'] },
);

/** The audit row of a request; whatever its body, the row is written (a body that cannot be summarised is described instead). */
export function auditEntry(request: FastifyRequest, status: number, url: string): AuditRecord {
  const auth = request.auth;
  // A refused signature still names the key its headers presented (resolved before the signature check).
  const presented = auth ? null : request.presentedKey;
  let body: string | null;
  try {
    body = auditedBody(request);
  } catch {
    body = JSON.stringify({ _invalido: 'corpo nao registravel' });
  }
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
  };
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
  return JSON.stringify(shorten(redact(body, AUDIT_KEYS)));
}

function shorten(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_AUDITED_STRING ? `[omitido: ${value.length} caracteres]` : value;
  if (Array.isArray(value)) return value.map(shorten);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  }
  return value;
}
