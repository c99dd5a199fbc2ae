import { createHmac, timingSafeEqual } from 'node:crypto';

/** `<ts>.<METHOD> <path_and_query>\n<raw body>` (spec § Authentication, step 3). */
export function signingPayload(timestamp: string, method: string, pathAndQuery: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${timestamp}.${method} ${pathAndQuery}\n`, 'utf8'), rawBody]);
}

export function computeSignature(secret: string, payload: Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Constant-time comparison of two lowercase hex signatures. */
export function signaturesMatch(expectedHex: string, receivedHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(receivedHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(receivedHex, 'hex'));
}
