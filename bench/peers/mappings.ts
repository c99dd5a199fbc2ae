/**
 * WireMock stubs recorded from the appliance (`npm run bench:peers`, bench/peers.ts): one real signed exchange with
 * the appliance becomes one WireMock mapping that answers the same status, content type and body bytes. Pure: the
 * bench makes the requests and writes the files.
 */

/** One request made to the appliance and what it answered. */
export interface RecordedExchange {
  method: 'GET' | 'POST';
  /** Path and query, as sent (`/v1/pacientes?limit=50`). */
  url: string;
  status: number;
  /** The answer's headers, names in any case (fetch gives them lower-case). */
  headers: Record<string, string>;
  body: string;
}

/** A WireMock 3 stub mapping (the JSON of a file in `<root-dir>/mappings/`, or of `POST /__admin/mappings`). */
export interface WireMockMapping {
  name: string;
  request: { method: string; url: string };
  response: { status: number; headers: Record<string, string>; body: string };
}

/**
 * The answer headers worth keeping in a stub: what a client reads to parse the body. Everything else the appliance
 * sends (request id, rate-limit counters, the API release) is per request or says nothing to a mock's client.
 */
export const KEPT_HEADERS = ['content-type'] as const;

/**
 * The stub answering what the appliance answered. It matches the method and the exact `url` (path and query; no
 * header or body pattern), so a GET's stub answers that page only, and a POST's stub answers every body and
 * Idempotency-Key sent to that path with the recorded answer (e.g. the 201 of one create).
 */
export function wireMockMapping(exchange: RecordedExchange): WireMockMapping {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.headers)) {
    const kept = KEPT_HEADERS.find((k) => k === name.toLowerCase());
    if (kept) headers[kept] = value;
  }
  return {
    name: `${exchange.method} ${exchange.url} (recorded from the appliance)`,
    request: { method: exchange.method, url: exchange.url },
    response: { status: exchange.status, headers, body: exchange.body },
  };
}

/** A file name for the mapping: `get-v1-pacientes-limit-50.json`. */
export function mappingFileName(exchange: Pick<RecordedExchange, 'method' | 'url'>): string {
  const slug = `${exchange.method}-${exchange.url}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${slug}.json`;
}
