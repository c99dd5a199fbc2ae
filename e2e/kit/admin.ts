import { request, type APIRequestContext } from '@playwright/test';

/**
 * The console API (`/admin/api`) from Node, signed in as an operator: a session cookie in its own
 * request context and the CSRF token every write needs. For setting a test up (issue a key, read a
 * clinic's settings) faster than through the screens.
 */
export class ConsoleApi {
  private constructor(
    readonly context: APIRequestContext,
    private readonly csrf: string,
  ) {}

  static async signIn(baseUrl: string, username: string, password: string): Promise<ConsoleApi> {
    const context = await request.newContext({ baseURL: baseUrl });
    const login = await context.post('/admin/api/auth/login', { data: { username, password } });
    if (login.status() !== 200) {
      await context.dispose();
      throw new Error(`console sign-in as ${username} failed: ${login.status()} ${await login.text()}`);
    }
    return new ConsoleApi(context, (await login.json()).data.csrf_token as string);
  }

  /** `data` of the answer; throws with the status and error when it is not 2xx. */
  async call<T = any>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await this.context.fetch(`/admin/api${path}`, {
      method,
      headers: method === 'GET' ? {} : { 'x-csrf-token': this.csrf },
      data: body,
    });
    const json = await res.json().catch(() => null);
    if (!res.ok()) throw new Error(`${method} /admin/api${path} → ${res.status()} ${JSON.stringify(json?.error ?? json)}`);
    return json.data as T;
  }

  /** Issues an API key of a clinic (all the given scopes); the secret is in this answer only. */
  async issueKey(tenant: string, scopes: string[], extra: { label?: string; medico_id?: number } = {}) {
    const key = await this.call<{ chave_id: number; api_key: string; api_secret: string }>('POST', `/tenants/${tenant}/keys`, { scopes, ...extra });
    return { id: key.chave_id, apiKey: key.api_key, apiSecret: key.api_secret };
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
  }
}
