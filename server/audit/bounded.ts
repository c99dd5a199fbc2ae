import { createHmac, type KeyObject } from 'node:crypto';
import { AUDIT_REDACTED_KEYS, keySet, redact } from '../http/redact.ts';

/** The field names whose values the journal never keeps (bodies, details, queries). */
export const AUDIT_KEYS = keySet(AUDIT_REDACTED_KEYS);

/**
 * Byte caps of every journal field (issue 19 § Bounded entries). Whatever a caller sends, one entry
 * weighs at most about 27 KB (ENTRY_MAX_BYTES); a truncation is always marked, never silent.
 * Lengths are counted in UTF-16 code units (what JavaScript measures for free); multi-byte text can
 * take up to three times that on disk, which ENTRY_MAX_BYTES allows for.
 */
export const JOURNAL_LIMITS = {
  /** Path and query as sent (after the query's redaction). */
  path: 2048,
  /** One request header's value. */
  headerValue: 256,
  /** Headers kept by name or value; the rest are counted. */
  headers: 40,
  /** Request body and response envelope, as redacted JSON. */
  body: 8192,
  /** Any string inside a body (inline base64 files are summarised). */
  string: 512,
  errorMessage: 512,
  detail: 2048,
  /** The sample of an unattributed group (path shorter: the group already counts the requests). */
  samplePath: 512,
} as const;

/** Fixed weight of an entry besides its text: row header, integer columns, index entries (measured ~180-260 B). */
export const ENTRY_OVERHEAD_BYTES = 256;

export const TRUNCATED_MARK = '…[truncado:';

/** `text` when short enough, else its first `max` characters and a mark saying how long it was. */
export function capText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}${TRUNCATED_MARK} ${text.length} caracteres]`;
}

const shortenLeaf = (value: unknown): unknown =>
  typeof value === 'string' && value.length > JOURNAL_LIMITS.string ? `[omitido: ${value.length} caracteres]` : value;

/**
 * A value (a parsed body, an envelope) as the journal keeps it: the spec's redaction at any depth, long
 * strings summarised, and the whole within `max` characters of JSON. Too big even so, it is pruned to its
 * first levels and items, and at last to its top-level keys, with `_truncado` saying what was dropped.
 */
export function boundedJson(value: unknown, keys: ReadonlySet<string>, max: number = JOURNAL_LIMITS.body): string {
  const redacted = redact(value, keys, 64, shortenLeaf);
  const full = JSON.stringify(redacted) ?? 'null';
  if (full.length <= max) return full;
  const mark = { caracteres: full.length, limite: max };
  for (const [depth, items] of [
    [4, 20],
    [2, 5],
  ] as const) {
    const pruned = JSON.stringify({ _truncado: mark, amostra: prune(redacted, depth, items) });
    if (pruned.length <= max) return pruned;
  }
  const topKeys =
    redacted !== null && typeof redacted === 'object' && !Array.isArray(redacted)
      ? Object.keys(redacted).slice(0, 20)
      : [];
  return JSON.stringify({ _truncado: mark, chaves: topKeys.map((k) => capText(k, 64)) });
}

/** The first `depth` levels of a JSON tree, `items` elements of each array or object, the rest counted. */
function prune(value: unknown, depth: number, items: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth === 0) return Array.isArray(value) ? `[lista de ${value.length}]` : '[objeto]';
  if (Array.isArray(value)) {
    const out: unknown[] = value.slice(0, items).map((v) => prune(v, depth - 1, items));
    if (value.length > items) out.push(`[+${value.length - items} itens]`);
    return out;
  }
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries.slice(0, items)) out[capText(k, 64)] = prune(v, depth - 1, items);
  if (entries.length > items) out._mais_chaves = entries.length - items;
  return out;
}

/**
 * A body the gateway did not parse (wrong content type, invalid JSON, refused before parsing) is never
 * stored: only its size, content type and a keyed digest (HMAC-SHA256 under a journal subkey of the
 * master key: two entries with the same bytes show the same digest, yet the journal holds nothing a
 * dictionary could reverse into a short password).
 */
export function unparsedBody(raw: Buffer | string, contentType: string | undefined, digestKey: KeyObject): string {
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  return JSON.stringify({
    _nao_interpretado: {
      bytes,
      content_type: contentType ? capText(contentType, 100) : null,
      hmac_sha256: createHmac('sha256', digestKey).update(raw).digest('hex'),
    },
  });
}

/** The text fields of an entry, for its weight. */
export interface WeighedFields {
  request_id: string;
  path: string;
  client_ip: string;
  tenant_slug: string | null;
  error_code: string | null;
  body: string | null;
  detail: string | null;
  error_message: string | null;
  response_body: string | null;
  request_headers: string | null;
  /** 32 characters when the entry has a trace id (migration 025). */
  trace_id?: string | null;
}

/** What an entry counts against AUDIT_MAX_BYTES. */
export function entryBytes(e: WeighedFields): number {
  return (
    ENTRY_OVERHEAD_BYTES +
    e.request_id.length +
    e.path.length +
    e.client_ip.length +
    (e.tenant_slug?.length ?? 0) +
    (e.error_code?.length ?? 0) +
    (e.body?.length ?? 0) +
    (e.detail?.length ?? 0) +
    (e.error_message?.length ?? 0) +
    (e.response_body?.length ?? 0) +
    (e.request_headers?.length ?? 0) +
    (e.trace_id?.length ?? 0)
  );
}
