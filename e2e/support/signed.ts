import { createHmac } from 'node:crypto';

/**
 * A signed call exactly as an integrator writes it from the spec (no project code):
 * HMAC-SHA256(secret, `${ts}.${METHOD} ${path_and_query}\n${body}`), lowercase hex.
 */
export async function signedCall(
  baseUrl: string,
  creds: { apiKey: string; apiSecret: string },
  method: string,
  pathAndQuery: string,
  body = '',
): Promise<{ status: number; json: any }> {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', creds.apiSecret).update(`${ts}.${method} ${pathAndQuery}\n${body}`).digest('hex');
  const response = await fetch(baseUrl + pathAndQuery, {
    method,
    headers: {
      'x-api-key': creds.apiKey,
      'x-timestamp': ts,
      'x-signature': signature,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body || undefined,
  });
  return { status: response.status, json: await response.json() };
}
