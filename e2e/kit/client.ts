import { createHmac, randomUUID } from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';

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
 * signature covers exactly the bytes sent. Given a Playwright request context (the kit's `api` fixture gives
 * the test's own), it sends through it, so every call is in the test's trace; without one, through Node's fetch.
 */
export class SignedClient {
  /** Seconds added to the real time when signing: set it after moving the appliance clock. */
  clockOffsetSeconds = 0;

  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials,
    readonly context?: APIRequestContext,
  ) {}

  /** The same client (same request context) with another key. */
  as(credentials: Credentials): SignedClient {
    const other = new SignedClient(this.baseUrl, credentials, this.context);
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
    const {
      status,
      headers: answered,
      text,
    } = this.context
      ? await this.viaContext(this.context, verb, pathAndQuery, headers, raw)
      : await this.viaFetch(verb, pathAndQuery, headers, raw);
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status, headers: answered, json };
  }

  private async viaContext(
    context: APIRequestContext,
    method: string,
    pathAndQuery: string,
    headers: Record<string, string>,
    raw: string,
  ) {
    // A Buffer is sent as it is (a string or object would be re-encoded); no redirect is followed.
    const response = await context.fetch(this.baseUrl + pathAndQuery, {
      method,
      headers,
      data: raw ? Buffer.from(raw, 'utf8') : undefined,
      maxRedirects: 0,
      failOnStatusCode: false,
    });
    const answered = new Headers();
    for (const { name, value } of response.headersArray()) answered.append(name, value);
    const text = await response.text();
    await response.dispose();
    return { status: response.status(), headers: answered, text };
  }

  private async viaFetch(method: string, pathAndQuery: string, headers: Record<string, string>, raw: string) {
    const response = await fetch(this.baseUrl + pathAndQuery, {
      method,
      headers,
      body: raw || undefined,
      redirect: 'manual',
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
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
