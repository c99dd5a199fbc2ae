import { STATUS_CODES } from 'node:http';
import type { JournalFilter, ReceivedEntry } from '../../contracts/admin/journal.ts';
import type { GatewayDb } from '../db/database.ts';
import { REDACTED } from '../http/redact.ts';
import { selectJournal, toReceivedEntry } from './journal-received.ts';

/**
 * Journal entries as HAR 1.2 (issue 30 § 5), made only of what the journal stores: its redacted, bounded request
 * body, its allowlisted request headers (signing headers are never stored: a verified request's X-Signature is
 * shown as `[REDACTED]`, its value unknown to the journal), its query with personal data redacted, and, where the
 * journal keeps one, the redacted answer. Response headers are not journaled, so none are made up. The journal's
 * own fields go along as custom fields (`_requestId`, `_chaveId`, …), as HAR allows.
 */

export interface HarOptions {
  /** Scheme and host for an entry whose journaled headers name no Host (`http://127.0.0.1:3000`). */
  origin: string;
  creatorVersion: string;
  comment: string;
  /** Custom log fields (`_tenant`, `_filter`, `_truncated`). */
  extra?: Record<string, unknown>;
}

interface HarHeader {
  name: string;
  value: string;
  comment?: string;
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);

function absoluteUrl(entry: ReceivedEntry, origin: string): string {
  const headers = entry.request_headers ?? {};
  const host =
    typeof headers.host === 'string' && /^[A-Za-z0-9.:[\]-]{1,255}$/.test(headers.host) ? headers.host : null;
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : null;
  const base = new URL(origin);
  const root = `${proto ?? base.protocol.replace(':', '')}://${host ?? base.host}`;
  try {
    return new URL(entry.path, root).href;
  } catch {
    return `${root}/`;
  }
}

function queryString(path: string): Array<{ name: string; value: string }> {
  const q = path.indexOf('?');
  if (q < 0) return [];
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return path
    .slice(q + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0
        ? { name: decode(pair), value: '' }
        : { name: decode(pair.slice(0, eq)), value: decode(pair.slice(eq + 1)) };
    });
}

function requestHeaders(entry: ReceivedEntry): { headers: HarHeader[]; omitted: number } {
  const headers: HarHeader[] = [];
  let omitted = 0;
  for (const [name, value] of Object.entries(entry.request_headers ?? {})) {
    if (name === '_omitidos') {
      omitted = Number(value) || 0;
      continue;
    }
    headers.push({ name, value: String(value) });
  }
  // The signature was checked, so it was sent; the journal never keeps it.
  if (entry.verified === 1 && entry.chave_id !== null)
    headers.push({
      name: 'x-signature',
      value: REDACTED,
      comment: 'never journaled: the value is not known to the export',
    });
  return { headers, omitted };
}

function headerValue(headers: HarHeader[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

export function harEntry(entry: ReceivedEntry, origin: string) {
  const { headers, omitted } = requestHeaders(entry);
  const body = text(entry.body);
  const declaredLength = Number(headerValue(headers, 'content-length'));
  const contentType = headerValue(headers, 'content-type');
  const response = text(entry.response_body);
  const ms = entry.duracao_ms ?? 0;
  return {
    startedDateTime: entry.ts,
    time: ms,
    request: {
      method: entry.method,
      url: absoluteUrl(entry, origin),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers,
      queryString: queryString(entry.path),
      ...(body !== null
        ? {
            postData: {
              mimeType: contentType && contentType !== '[omitido]' ? contentType : 'application/json',
              text: body,
              comment: 'as journaled: redacted and bounded (a body that did not parse is described, never kept)',
            },
          }
        : {}),
      headersSize: -1,
      bodySize: Number.isSafeInteger(declaredLength) && declaredLength >= 0 ? declaredLength : body === null ? 0 : -1,
      ...(omitted > 0 ? { comment: `${omitted} more header(s) not journaled` } : {}),
    },
    response: {
      status: entry.status,
      statusText: STATUS_CODES[entry.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content:
        response !== null
          ? {
              size: response.length,
              mimeType: 'application/json; charset=utf-8',
              text: response,
              comment: 'as journaled: redacted and bounded',
            }
          : {
              size: 0,
              mimeType: entry.status >= 300 && entry.status < 400 ? 'x-unknown' : 'application/json; charset=utf-8',
              comment: 'not journaled (successful reads and redirects keep no answer)',
            },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      comment: 'response headers are not journaled',
    },
    cache: {},
    timings: { send: 0, wait: ms, receive: 0 },
    _journalId: entry.id,
    _requestId: entry.request_id,
    _tenant: entry.tenant_slug,
    _chaveId: entry.chave_id,
    _verified: entry.verified === 1,
    _errorCode: entry.error_code,
    _errorMessage: entry.error_message,
    _detail: entry.detail ?? null,
    _traceId: entry.trace_id,
  };
}

/** A HAR weighs at most this many bytes of entries (HAR_MAX_ENTRIES of the largest entries would be ~70 MB). */
export const HAR_MAX_BYTES = 32 * 1024 * 1024;

/** The HAR document as text, and whether entries were left out to keep it under HAR_MAX_BYTES. */
export function toHar(entries: ReceivedEntry[], options: HarOptions): { text: string; entries: number; cut: boolean } {
  const parts: string[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const part = JSON.stringify(harEntry(entry, options.origin));
    if (bytes + part.length > HAR_MAX_BYTES) break;
    parts.push(part);
    bytes += part.length + 1;
  }
  const cut = parts.length < entries.length;
  const log = JSON.stringify({
    version: '1.2',
    creator: { name: 'Clinic Exams Gateway', version: options.creatorVersion },
    comment: options.comment,
    ...options.extra,
    ...(cut ? { _cutAtBytes: HAR_MAX_BYTES } : {}),
  });
  return { text: `{"log":${log.slice(0, -1)},"entries":[${parts.join(',')}]}}`, entries: parts.length, cut };
}

export interface JournalHar {
  text: string;
  entries: number;
  /** More entries matched than the HAR holds (`limit`, or HAR_MAX_BYTES). */
  truncated: boolean;
  filename: string;
}

/** One clinic's journal entries matching `filter`, oldest first, as a HAR file (the console, the automation API, the CLI). */
export async function journalHar(
  db: GatewayDb,
  tenant: { id: number; slug: string },
  filter: JournalFilter,
  limit: number,
  options: { origin: string; release: string; now: Date },
): Promise<JournalHar> {
  const selection = await selectJournal(db, tenant.id, filter, limit);
  const applied = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
  const har = toHar(selection.rows.map(toReceivedEntry), {
    origin: options.origin,
    creatorVersion: options.release,
    comment:
      `What the gateway received for clinic "${tenant.slug}", oldest first, as its journal stores it: bodies, ` +
      'queries and headers redacted and bounded; no secret, no signature, no redacted personal data.',
    extra: {
      _tenant: tenant.slug,
      _filter: applied,
      _exportedAt: options.now.toISOString(),
      _truncated: selection.truncated,
      _windowCapped: selection.bounds.capped,
    },
  });
  const stamp = options.now.toISOString().replace(/[:.]/g, '-');
  return {
    text: har.text,
    entries: har.entries,
    truncated: selection.truncated || har.cut,
    filename: `journal-${tenant.slug}-${stamp}.har`,
  };
}
