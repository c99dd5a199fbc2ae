import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../contracts/sha256.js';
import { curlCommand, signature, stringToSign } from '../../console/src/features/playground/signing.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('signing playground', () => {
  it('signs the spec string with the secret as text (Web Crypto in Node), UTF-8 body bytes included', async () => {
    const secret = randomBytes(32).toString('hex');
    const payload = stringToSign('1700000000', 'POST', '/v1/pacientes?x=1', '{"nome":"João"}');
    expect(payload).toBe('1700000000.POST /v1/pacientes?x=1\n{"nome":"João"}');
    const result = await signature(secret, payload);
    expect(result.hex).toBe(createHmac('sha256', secret).update(payload).digest('hex'));
    expect(hex(hmacSha256(new TextEncoder().encode(secret), new TextEncoder().encode(payload)))).toBe(result.hex);
  });

  it('the curl sends the body as signed and quotes it for the shell', () => {
    const curl = curlCommand({
      origin: 'http://h',
      method: 'POST',
      pathAndQuery: '/v1/x',
      body: `{"a":"it's"}`,
      apiKey: 'k',
      timestamp: '1',
      signature: 's',
    });
    expect(curl).toContain(`--data-binary '{"a":"it'\\''s"}'`);
    expect(curl).toContain('Idempotency-Key');
  });
});
