// Password hashes of both services (gateway operators, backend-sim patients and doctors): scrypt in one stored
// form, `scrypt$N$r$p$salt$hash` (salt and hash in base64). Each service chooses its own cost; a hash carries
// the cost it was made with, so verification reads it from there.
import { randomBytes, scrypt as scryptCb, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
  /** Bytes of derived key stored. */
  keylen: number;
}

/** Memory allowed to one scrypt: above what the costs in use need (128·N·r bytes: 32 MiB at N=2^15, r=8). */
const MAXMEM = 64 * 1024 * 1024;

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** The stored form of `hash`, made from `salt` at `cost`. */
export function formatScrypt(cost: ScryptCost, salt: Buffer, hash: Buffer): string {
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** A fresh random salt, hashed off the event loop. */
export async function hashScrypt(password: string, cost: ScryptCost): Promise<string> {
  const salt = randomBytes(16);
  return formatScrypt(
    cost,
    salt,
    await scrypt(password, salt, cost.keylen, { N: cost.N, r: cost.r, p: cost.p, maxmem: MAXMEM }),
  );
}

/** A given salt, synchronously: the same password and salt always give the same text (deterministic seeds). */
export function hashScryptWithSalt(password: string, salt: Buffer, cost: ScryptCost): string {
  return formatScrypt(
    cost,
    salt,
    scryptSync(password, salt, cost.keylen, { N: cost.N, r: cost.r, p: cost.p, maxmem: MAXMEM }),
  );
}

/** Whether `password` gives `stored`'s hash at `stored`'s own cost; false for anything not in the scrypt form. */
export async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
