import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

/**
 * Signs requests exactly as an integrator would, from the spec alone (no gateway code):
 * HMAC-SHA256(secret, `${ts}.${METHOD} ${path_and_query}\n${raw body}`), lowercase hex.
 */
export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

export interface SignedRequest {
  method?: string;
  /** Request target as sent: path plus query string. */
  path: string;
  /** A string is sent byte for byte; anything else is JSON.stringify'd. */
  body?: unknown;
  headers?: Record<string, string>;
  timestamp?: string | number;
  /** Override the computed signature (tampering tests). */
  signature?: string;
  /** Sign a different payload than the one sent. */
  signWith?: { method?: string; path?: string; body?: string; timestamp?: string | number; secret?: string };
  idempotencyKey?: string;
  /** The client's source address (127.0.0.2, … on Linux loopback), as another machine would be. */
  localAddress?: string;
}

export interface SignedResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export function sign(secret: string, timestamp: string, method: string, pathAndQuery: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${method} ${pathAndQuery}\n${body}`).digest('hex');
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export async function signedRequest<T = any>(
  baseUrl: string,
  creds: Credentials,
  req: SignedRequest,
): Promise<SignedResponse<T>> {
  const method = req.method ?? 'GET';
  const raw = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const timestamp = String(req.timestamp ?? nowSeconds());
  const s = req.signWith ?? {};
  const signature =
    req.signature ??
    sign(
      s.secret ?? creds.apiSecret,
      String(s.timestamp ?? timestamp),
      s.method ?? method,
      s.path ?? req.path,
      s.body ?? raw,
    );
  const headers: Record<string, string> = {
    'x-api-key': creds.apiKey,
    'x-timestamp': timestamp,
    'x-signature': signature,
    ...(raw ? { 'content-type': 'application/json' } : {}),
    ...(req.idempotencyKey ? { 'idempotency-key': req.idempotencyKey } : {}),
    ...req.headers,
  };
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  return rawRequest<T>(baseUrl, {
    method,
    path: req.path,
    headers,
    body: raw || undefined,
    localAddress: req.localAddress,
  });
}

/** A plain HTTP request, nothing added: for unsigned and malformed calls. */
export async function rawRequest<T = any>(
  baseUrl: string,
  req: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    localAddress?: string;
  },
): Promise<SignedResponse<T>> {
  const response = await request(baseUrl + req.path, {
    method: (req.method ?? 'GET') as any,
    headers: req.headers,
    body: req.body,
    dispatcher: req.localAddress ? agentFrom(req.localAddress) : undefined,
  });
  const text = await response.body.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { status: response.statusCode, headers, body, text };
}

const agents = new Map<string, Agent>();
/** One keep-alive agent per source address. */
function agentFrom(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress });
    agents.set(localAddress, agent);
  }
  return agent;
}
