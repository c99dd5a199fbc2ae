import { randomBytes } from 'node:crypto';
import { hashScrypt, hashScryptWithSalt, verifyScrypt, type ScryptCost } from '../../shared-node/scrypt.ts';

/** Patients' and doctors' passwords: cheaper than the gateway's operators (N=2^14), 32-byte hashes. */
const COST: ScryptCost = { N: 16384, r: 8, p: 1, keylen: 32 };

export async function hashPassword(password: string): Promise<string> {
  return hashScrypt(password, COST);
}

/** Deterministic variant for the seed (fixed salt derived from the seed), so dumps are byte-identical. */
export function hashPasswordWithSalt(password: string, salt: Buffer): string {
  return hashScryptWithSalt(password, salt, COST);
}

export const verifyPassword = verifyScrypt;

/**
 * The stored form of a random password nobody was told: no password can match it, so paying for
 * scrypt on it (tens of ms of CPU per patient create) buys nothing. The patient sets one through
 * the portal's reset flow (senha_temporaria stays 1).
 */
export function lockedPassword(): string {
  return `locked$${randomBytes(16).toString('hex')}`;
}
