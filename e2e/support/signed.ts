import { SignedClient } from '../kit/client.ts';

/** Kept for older specs: one signed call through the QA kit's client (e2e/kit), which adds an Idempotency-Key to writes. */
export async function signedCall(
  baseUrl: string,
  creds: { apiKey: string; apiSecret: string },
  method: string,
  pathAndQuery: string,
  body = '',
): Promise<{ status: number; json: any }> {
  return new SignedClient(baseUrl, creds).call(method, pathAndQuery, body || undefined);
}
