import type { z } from 'zod';
import { englishMessage } from './messages.ts';

/** The console's one HTTP client: envelope unwrapping, CSRF header, session-loss notification. */

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Field-level messages from a VAL_INVALID_PARAM answer, keyed by field path. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    const lista = (this.details?.lista ?? []) as Array<{ field: string; msg: string }>;
    for (const item of lista) out[item.field] ??= englishMessage(item.msg);
    const field = this.details?.field;
    if (typeof field === 'string' && field && !out[field]) out[field] = englishMessage(this.message);
    return out;
  }
}

let csrfToken: string | null = null;
const sessionLostListeners = new Set<() => void>();

/** Kept in memory only: the cookie is HttpOnly, the CSRF token comes from the session endpoint. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function onSessionLost(listener: () => void): () => void {
  sessionLostListeners.add(listener);
  return () => sessionLostListeners.delete(listener);
}

export const API_BASE = '/admin/api';

/**
 * One call of the console API. `schema` is the answer's contract (contracts/admin/): `data` is parsed
 * with it, never cast, so a gateway that answers outside the contract is a visible error, not a blank screen.
 */
export async function api<S extends z.ZodType>(
  schema: S,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<z.output<S>> {
  return (await apiWithMeta(schema, method, path, body)).data;
}

/** `api`, with the answer's `meta` too (a list's `total`: the keys list's paging). */
export async function apiWithMeta<S extends z.ZodType>(
  schema: S,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ data: z.output<S>; meta: Record<string, unknown> }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // A file (a snapshot archive) goes as its bytes; anything else as JSON.
  const raw = body instanceof Blob;
  if (body !== undefined) headers['content-type'] = raw ? 'application/octet-stream' : 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(API_BASE + path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('NETWORK', 0, 'The gateway could not be reached. Is it running?');
  }
  let payload: {
    data: unknown;
    meta?: { request_id?: string } & Record<string, unknown>;
    error: { code: string; message: string; details: Record<string, unknown> | null } | null;
  };
  try {
    payload = await response.json();
  } catch {
    throw new ApiError(
      'BAD_RESPONSE',
      response.status,
      `Unexpected response from the gateway (HTTP ${response.status}).`,
    );
  }
  if (payload.error) {
    const error = new ApiError(
      payload.error.code,
      response.status,
      payload.error.message,
      payload.error.details,
      payload.meta?.request_id ?? null,
    );
    if (error.code === 'ADMIN_UNAUTHENTICATED' && path !== '/auth/login')
      for (const listener of sessionLostListeners) listener();
    throw error;
  }
  const parsed = schema.safeParse(payload.data);
  if (!parsed.success) {
    console.error(`${method} ${API_BASE}${path}: the answer does not match its contract`, parsed.error.issues);
    throw new ApiError(
      'BAD_RESPONSE',
      response.status,
      `Unexpected response from the gateway (${method} ${path}).`,
      null,
      payload.meta?.request_id ?? null,
    );
  }
  return { data: parsed.data, meta: payload.meta ?? {} };
}

/** `?a=1&b=2` from an object, skipping empty values. */
export function toQuery(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
