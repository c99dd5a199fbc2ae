import { randomBytes, scrypt as scryptCb, scryptSync, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 };

function format(salt: Buffer, hash: Buffer): string {
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return format(salt, await scrypt(password, salt, 32, PARAMS));
}

/** Deterministic variant for the seed (fixed salt derived from the seed), so dumps are byte-identical. */
export function hashPasswordWithSalt(password: string, salt: Buffer): string {
  return format(salt, scryptSync(password, salt, 32, PARAMS));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(expected, actual);
}

export function randomSecret(bytes = 12): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * The stored form of a random password nobody was told: no password can match it, so paying for
 * scrypt on it (tens of ms of CPU per patient create) buys nothing. The patient sets one through
 * the portal's reset flow (senha_temporaria stays 1).
 */
export function lockedPassword(): string {
  return `locked$${randomBytes(16).toString('hex')}`;
}
