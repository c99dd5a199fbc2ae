import { createHmac, randomUUID } from 'node:crypto';

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

export interface SignedResponse<T = any> {
  status: number;
  headers: Headers;
  /** The parsed envelope `{data, meta, error}` (null when the answer is not JSON, e.g. a 302). */
  json: T;
}

export interface CallOptions {
  /** Extra headers; a given `idempotency-key` replaces the generated one. */
  headers?: Record<string, string>;
  /** Unix seconds to sign with (default: now, plus `clockOffsetSeconds`). */
  timestamp?: number;
  /** Do not send an Idempotency-Key even on a write (to test the 400). */
  noIdempotencyKey?: boolean;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The string the spec signs: `<ts>.<METHOD> <path_and_query>\n<raw body>`. */
export function stringToSign(timestamp: string, method: string, pathAndQuery: string, body: string): string {
  return `${timestamp}.${method.toUpperCase()} ${pathAndQuery}\n${body}`;
}

export function sign(secret: string, timestamp: string, method: string, pathAndQuery: string, body: string): string {
  return createHmac('sha256', secret)
    .update(stringToSign(timestamp, method, pathAndQuery, body))
    .digest('hex');
}

/**
 * A /v1 client written from the spec alone: signs every call (HMAC-SHA256, lowercase hex) and adds a
 * fresh `Idempotency-Key` (UUID v4) to every write. Objects are sent as JSON, strings as they are: the
 * signature covers exactly the bytes sent.
 */
export class SignedClient {
  /** Seconds added to the real time when signing: set it after moving the appliance clock. */
  clockOffsetSeconds = 0;

  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials,
  ) {}

  /** The same client with another key. */
  as(credentials: Credentials): SignedClient {
    const other = new SignedClient(this.baseUrl, credentials);
    other.clockOffsetSeconds = this.clockOffsetSeconds;
    return other;
  }

  async call<T = any>(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<SignedResponse<T>> {
    const verb = method.toUpperCase();
    const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const ts = String(options.timestamp ?? Math.floor(Date.now() / 1000) + this.clockOffsetSeconds);
    const headers: Record<string, string> = {
      'x-api-key': this.credentials.apiKey,
      'x-timestamp': ts,
      'x-signature': sign(this.credentials.apiSecret, ts, verb, pathAndQuery, raw),
    };
    if (raw) headers['content-type'] = 'application/json';
    if (WRITES.has(verb) && !options.noIdempotencyKey) headers['idempotency-key'] = randomUUID();
    Object.assign(headers, lowerKeys(options.headers ?? {}));
    const response = await fetch(this.baseUrl + pathAndQuery, {
      method: verb,
      headers,
      body: raw || undefined,
      redirect: 'manual',
    });
    const text = await response.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, json };
  }

  get<T = any>(pathAndQuery: string, options?: CallOptions) {
    return this.call<T>('GET', pathAndQuery, undefined, options);
  }
  post<T = any>(pathAndQuery: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('POST', pathAndQuery, body, options);
  }
  patch<T = any>(pathAndQuery: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('PATCH', pathAndQuery, body, options);
  }
  delete<T = any>(pathAndQuery: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('DELETE', pathAndQuery, body, options);
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
