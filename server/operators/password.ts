import { randomBytes } from 'node:crypto';
import { formatScrypt, hashScrypt, verifyScrypt, type ScryptCost } from '../../shared-node/scrypt.ts';

// N=2^15, r=8 (32 MiB per hash): slow enough to hurt offline guessing, fast enough for a login form.
const COST: ScryptCost = { N: 32768, r: 8, p: 1, keylen: 64 };

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64 (the operators table format). */
export async function hashPassword(password: string): Promise<string> {
  return hashScrypt(password, COST);
}

export const verifyPassword = verifyScrypt;

/**
 * Verified instead of an operator's hash when the username is unknown, so that the answer takes as
 * long (one scrypt with the same parameters) and nothing tells which usernames exist. Random salt and
 * hash in the operators' format: no password matches it, and nothing is computed at start.
 */
const DUMMY_HASH = formatScrypt(COST, randomBytes(16), randomBytes(COST.keylen));

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
