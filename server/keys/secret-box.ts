import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomFillSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../secrets-files.ts';

/** AES-256-GCM sealing of API secrets at rest. The associated data binds a sealed value to its key row. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be 32 bytes');
  }

  seal(plaintext: string, associatedData: string): string {
    return this.sealBytes(plaintext, associatedData).toString('base64');
  }

  open(sealed: string, associatedData: string): string {
    return this.openBytes(Buffer.from(sealed, 'base64'), associatedData);
  }

  /** `iv (12) | tag (16) | ciphertext` as bytes, for BLOB columns (no base64 on the hot path). */
  sealBytes(plaintext: string, associatedData: string): Buffer {
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** Throws when the value was altered, moved to another row or sealed under another key. */
  openBytes(raw: Buffer, associatedData: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * Random 96-bit GCM nonces, drawn from the CSPRNG a few hundred at a time: one call per seal cost
 * more than the sealing of a small response (every idempotent write seals its answer). Each nonce is
 * copied out and its bytes are never handed out twice.
 */
const IV_POOL = Buffer.alloc(12 * 256);
let ivOffset = IV_POOL.length;
function nextIv(): Buffer {
  if (ivOffset === IV_POOL.length) {
    randomFillSync(IV_POOL);
    ivOffset = 0;
  }
  const iv = Buffer.from(IV_POOL.subarray(ivOffset, ivOffset + 12));
  ivOffset += 12;
  return iv;
}

/** A 32-byte subkey of the master key for one purpose (HKDF-SHA256): one key, one use. */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, 32));
}

/** The master key comes from MASTER_KEY, or is generated once into DATA_DIR/master.key (0600). */
export function loadMasterKey(dataDir: string, fromEnv?: string): Buffer {
  if (fromEnv) return Buffer.from(fromEnv, 'hex');
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, 'master.key');
  if (existsSync(file)) {
    const hex = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 64-hex-char master key`);
    return Buffer.from(hex, 'hex');
  }
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
