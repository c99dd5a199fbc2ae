import { request, type APIRequestContext } from '@playwright/test';

/**
 * The console API (`/admin/api`) from Node, signed in as an operator: a session cookie in its own
 * request context and the CSRF token every write needs. For setting a test up (issue a key, read a
 * clinic's settings) faster than through the screens.
 */
export class ConsoleApi {
  /** Keys this client issued (or was told about with `track`) and has not revoked: `cleanup()` revokes them. */
  private readonly tracked = new Set<number>();

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
    if (!res.ok())
      throw new Error(`${method} /admin/api${path} → ${res.status()} ${JSON.stringify(json?.error ?? json)}`);
    return json.data as T;
  }

  /** The body of a GET that answers a file rather than the envelope (e.g. a HAR); throws when it is not 2xx. */
  async download(path: string): Promise<Buffer> {
    const res = await this.context.get(`/admin/api${path}`);
    if (!res.ok()) throw new Error(`GET /admin/api${path} → ${res.status()} ${await res.text()}`);
    return res.body();
  }

  /**
   * Issues an API key of a clinic (all the given scopes); the secret is in this answer only. The key is revoked
   * by `cleanup()` (the kit calls it when the worker ends) unless `keep: true`. Its label says the kit made it.
   */
  async issueKey(tenant: string, scopes: string[], extra: { label?: string; medico_id?: number; keep?: boolean } = {}) {
    const { keep, label = 'e2e kit', ...rest } = extra;
    const key = await this.call<{ chave_id: number; api_key: string; api_secret: string }>(
      'POST',
      `/tenants/${tenant}/keys`,
      { scopes, label, ...rest },
    );
    if (!keep) this.tracked.add(key.chave_id);
    return { id: key.chave_id, apiKey: key.api_key, apiSecret: key.api_secret };
  }

  /** Revokes a key now (any key: issued here, through the screens, or by the CLI). Revoking twice is harmless. */
  async revokeKey(id: number): Promise<void> {
    this.tracked.delete(id);
    const res = await this.context.fetch(`/admin/api/keys/${id}/revoke`, {
      method: 'POST',
      headers: { 'x-csrf-token': this.csrf },
    });
    // 422 INVALID_STATE: already revoked; 404: gone with its clinic (a worker's clinic dropped). Both are what was wanted.
    if (!res.ok() && res.status() !== 422 && res.status() !== 404)
      throw new Error(`POST /admin/api/keys/${id}/revoke → ${res.status()} ${await res.text()}`);
  }

  /** A key made elsewhere (e.g. issued through the screens by a test) for `cleanup()` to revoke. */
  track(id: number): void {
    this.tracked.add(id);
  }

  /**
   * Revokes every key this client issued or was told to track and has not revoked yet; the kit calls it when
   * the worker ends. Revoked keys drop out of the keys screen's list (its "Show revoked" brings them back).
   */
  async cleanup(): Promise<number[]> {
    const ids = [...this.tracked];
    for (const id of ids) await this.revokeKey(id);
    return ids;
  }

  /** Revokes an operator token and takes it off the list (`DELETE /operator-tokens/:id`): nothing is left behind. */
  async removeOperatorToken(id: number): Promise<void> {
    await this.call('POST', `/operator-tokens/${id}/revoke`);
    await this.call('DELETE', `/operator-tokens/${id}`);
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
  }
}
