import { createHash } from 'node:crypto';

/** Key order and whitespace do not make a body "different": hash a canonical JSON form. */
export function canonicalBodyHash(body: unknown, raw: Buffer): string {
  const hash = createHash('sha256');
  if (body === undefined) hash.update(raw);
  else hash.update(canonicalJson(body));
  return hash.digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
