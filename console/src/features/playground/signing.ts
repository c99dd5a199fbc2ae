import { hmacSha256 } from './sha256.ts';

/** Spec § Authentication: `<timestamp>.<METHOD> <path_and_query>\n<raw body>`. */
export function stringToSign(timestamp: string, method: string, pathAndQuery: string, body: string): string {
  return `${timestamp}.${method} ${pathAndQuery}\n${body}`;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Lowercase hex HMAC-SHA256, keyed by the secret's UTF-8 bytes, in the browser: the secret never leaves it. */
export async function signature(secret: string, payload: string): Promise<{ hex: string; engine: 'Web Crypto' | 'built-in' }> {
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

/** A curl that sends exactly the bytes signed (`--data-binary`, no trailing newline added). */
export function curlCommand(input: { origin: string; method: string; pathAndQuery: string; body: string; apiKey: string; timestamp: string; signature: string }): string {
  const lines = [`curl -sS -X ${input.method} ${shellQuote(input.origin + input.pathAndQuery)}`];
  lines.push(`-H ${shellQuote(`X-API-Key: ${input.apiKey || '<API_KEY>'}`)}`);
  lines.push(`-H 'X-Timestamp: ${input.timestamp}'`);
  lines.push(`-H 'X-Signature: ${input.signature}'`);
  if (WRITE_METHODS.has(input.method)) lines.push(`-H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)"`);
  if (input.body) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`--data-binary ${shellQuote(input.body)}`);
  }
  return lines.join(' \\\n  ');
}
