import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

// N=2^15, r=8 (32 MiB per hash): slow enough to hurt offline guessing, fast enough for a login form.
const N = 32768;
const R = 8;
const P = 1;
const KEYLEN = 64;
const maxmem = 64 * 1024 * 1024;

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64 (the operators table format). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEYLEN, { N, r: R, p: P, maxmem });
  return ['scrypt', N, R, P, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Verified instead of an operator's hash when the username is unknown, so that the answer takes as
 * long (one scrypt with the same parameters) and nothing tells which usernames exist. Random salt and
 * hash in the operators' format: no password matches it, and nothing is computed at start.
 */
const DUMMY_HASH = ['scrypt', N, R, P, randomBytes(16).toString('base64'), randomBytes(KEYLEN).toString('base64')].join('$');

/** Always false, at the cost of a real verification. */
export async function burnPasswordCheck(password: string): Promise<false> {
  await verifyPassword(password, DUMMY_HASH);
  return false;
}

/** 20 characters from an unambiguous alphabet, ~115 bits. */
export function generatePassword(length = 20): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length; i++) {
    const b = bytes[i % bytes.length];
    if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length];
    if (i > length * 8) break;
  }
  return out.padEnd(length, 'x');
}
