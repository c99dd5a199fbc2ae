import { hmacSha256 } from '../../../../contracts/sha256.js';

/** Spec § Authentication: `<timestamp>.<METHOD> <path_and_query>\n<raw body>`. */
export function stringToSign(timestamp: string, method: string, pathAndQuery: string, body: string): string {
  return `${timestamp}.${method} ${pathAndQuery}\n${body}`;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Lowercase hex HMAC-SHA256, keyed by the secret's UTF-8 bytes, in the browser: the secret never leaves it. */
export async function signature(
  secret: string,
  payload: string,
): Promise<{ hex: string; engine: 'Web Crypto' | 'built-in' }> {
  const encoder = new TextEncoder();
  const key = encoder.encode(secret);
  const data = encoder.encode(payload);
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return { hex: hex(new Uint8Array(await subtle.sign('HMAC', cryptoKey, data))), engine: 'Web Crypto' };
  }
  return { hex: hex(hmacSha256(key, data)), engine: 'built-in' };
}

export const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** A UUID v4 for Idempotency-Key; `crypto.randomUUID` needs a secure context, `getRandomValues` does not. */
export function newIdempotencyKey(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = hex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The request target as the browser will send it: `fetch` normalises what was typed (a space becomes %20,
 * `/v1/../x` is resolved), and the signature must cover what goes on the wire.
 */
export function targetAsSent(pathAndQuery: string, origin: string): string {
  const url = new URL(pathAndQuery, origin);
  return url.pathname + url.search;
}

/**
 * A curl that sends exactly the bytes signed (`--data-binary`, no trailing newline added). Without an
 * `idempotencyKey`, a write gets a fresh one from the shell; with one, the curl repeats that request.
 */
export function curlCommand(input: {
  origin: string;
  method: string;
  pathAndQuery: string;
  body: string;
  apiKey: string;
  timestamp: string;
  signature: string;
  idempotencyKey?: string;
}): string {
  const lines = [`curl -sS -X ${input.method} ${shellQuote(input.origin + input.pathAndQuery)}`];
  lines.push(`-H ${shellQuote(`X-API-Key: ${input.apiKey || '<API_KEY>'}`)}`);
  lines.push(`-H 'X-Timestamp: ${input.timestamp}'`);
  lines.push(`-H 'X-Signature: ${input.signature}'`);
  if (WRITE_METHODS.has(input.method)) {
    lines.push(
      input.idempotencyKey
        ? `-H 'Idempotency-Key: ${input.idempotencyKey}'`
        : `-H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)"`,
    );
  }
  if (input.body) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`--data-binary ${shellQuote(input.body)}`);
  }
  return lines.join(' \\\n  ');
}
