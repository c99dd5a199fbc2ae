import { Pool } from 'undici';
import { ApiError, isErrorCode } from '../errors.ts';

export interface BackendCallContext {
  chaveId: number;
  medicoFiltroId: number;
  requestId: string;
}

export interface BackendCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** Path below the backend root, e.g. `/tenants/demo/pacientes`. */
  path: string;
  query?: Record<string, string | number | boolean | Array<string | number> | undefined>;
  body?: unknown;
  context?: BackendCallContext;
}

export interface BackendResult<T = unknown> {
  status: number;
  data: T;
  meta: Record<string, unknown>;
}

const unavailable = (): ApiError =>
  new ApiError('SERVICE_UNAVAILABLE', 'Servico temporariamente indisponivel. Tente novamente.');

/**
 * The gateway's only way to the clinic data. Maps every backend failure to the spec:
 * refused/dropped connection, bad status or invalid JSON → 503; no answer in time → 504.
 */
export class BackendClient {
  private readonly pool: Pool;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {
    this.pool = new Pool(baseUrl, { connections: 64, pipelining: 1, keepAliveTimeout: 10_000 });
  }

  async call<T = unknown>(call: BackendCall): Promise<BackendResult<T>> {
    const headers: Record<string, string> = { 'x-internal-token': this.token, accept: 'application/json' };
    if (call.context) {
      headers['x-chave-id'] = String(call.context.chaveId);
      headers['x-medico-filtro-id'] = String(call.context.medicoFiltroId);
      headers['x-request-id'] = call.context.requestId;
    }
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    let status: number;
    let text: string;
    try {
      const response = await this.pool.request({
        method: call.method,
        path: call.path + buildQuery(call.query),
        headers,
        body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      if (isTimeout(error)) throw new ApiError('SERVICE_TIMEOUT', 'O sistema da clinica nao respondeu a tempo.');
      throw unavailable();
    }
    let parsed: { data?: unknown; meta?: Record<string, unknown>; error?: { code?: unknown; message?: unknown; details?: unknown } };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw unavailable();
    }
    if (parsed === null || typeof parsed !== 'object') throw unavailable();
    if (status >= 200 && status < 300) {
      if (!('data' in parsed)) throw unavailable();
      return { status, data: parsed.data as T, meta: parsed.meta ?? {} };
    }
    const code = parsed.error?.code;
    if (code === 'TENANT_NOT_FOUND' || code === 'TENANT_OPEN_FAILED') {
      throw new ApiError('AUTH_TENANT_OPEN_FAILED', 'Falha ao abrir o ambiente da clinica.');
    }
    // INTERNAL_AUTH_FAILED and every unclassified 5xx: the spec's 503.
    if (status >= 500 || status === 401 || !isErrorCode(code)) throw unavailable();
    const details = parsed.error?.details;
    throw new ApiError(
      code,
      typeof parsed.error?.message === 'string' ? parsed.error.message : 'Requisicao recusada pelo sistema da clinica.',
      details && typeof details === 'object' ? (details as Record<string, unknown>) : null,
    );
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function buildQuery(query: BackendCall['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, String(item));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function isTimeout(error: unknown): boolean {
  const e = error as { code?: string; name?: string };
  return (
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT' ||
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError'
  );
}
