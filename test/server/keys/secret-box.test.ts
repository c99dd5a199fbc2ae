import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { SecretBox } from '../../../server/keys/secret-box.ts';

const box = new SecretBox(randomBytes(32));

test('every seal draws a fresh nonce, across refills of the nonce pool (1,000 seals of the same text)', () => {
  const nonces = new Set<string>();
  const sealed = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const raw = box.sealBytes('same text', 'same row');
    nonces.add(raw.subarray(0, 12).toString('hex'));
    sealed.add(raw.toString('hex'));
  }
  expect(nonces.size).toBe(1000);
  expect(sealed.size).toBe(1000);
});

test('a sealed value opens with its associated data only, and an altered one never opens', () => {
  const raw = box.sealBytes('paciente 42', 'idempotency:1');
  expect(box.openBytes(raw, 'idempotency:1')).toBe('paciente 42');
  expect(() => box.openBytes(raw, 'idempotency:2')).toThrow();
  const altered = Buffer.from(raw);
  altered[altered.length - 1] ^= 1;
  expect(() => box.openBytes(altered, 'idempotency:1')).toThrow();
  // A nonce taken from the pool is a copy: changing it later does not change the next seal's.
  const a = box.sealBytes('x', 'y');
  a.fill(0, 0, 12);
  expect(box.sealBytes('x', 'y').subarray(0, 12).equals(Buffer.alloc(12))).toBe(false);
});
