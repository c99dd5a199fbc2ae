import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../contracts/sha256.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// The console's playground and the /docs page fall back to this where the browser hides Web Crypto (plain http on a
// LAN address).
describe('contracts/sha256.js', () => {
  it('HMAC-SHA256 equals node:crypto for keys and messages of every length around the block size', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 100]) {
      for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
        const key = randomBytes(keyLength);
        const message = randomBytes(length);
        expect(hex(hmacSha256(key, message))).toBe(createHmac('sha256', key).update(message).digest('hex'));
      }
    }
  });
});
