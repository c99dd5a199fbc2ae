import { Agent, request, type Dispatcher } from 'undici';
import SQLite from 'better-sqlite3';
import path from 'node:path';
import { checkAdminAnswer } from './admin-contract.ts';
import type { OperatorRole } from '../../../contracts/admin/operators.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import type { TestStack } from '../../helpers/stack.ts';

export interface ConsoleResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: { data: T; meta: Record<string, unknown>; error: { code: string; message: string; details: any } | null };
  /** The body as received, byte for byte. */
  text: string;
}

/** A browser-like console client: keeps the session cookie, sends the CSRF header when it has one. */
export class ConsoleClient {
  cookie: string | null = null;
  csrf: string | null = null;

  private readonly dispatcher: Dispatcher | undefined;

  /** `localAddress`: the client's source address (127.0.0.2, … on Linux loopback), as another machine would be. */
  constructor(
    private readonly baseUrl: string,
    options: { localAddress?: string } = {},
  ) {
    this.dispatcher = options.localAddress ? new Agent({ localAddress: options.localAddress }) : undefined;
  }

  async call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: string | null; cookie?: string | null } = {},
  ): Promise<ConsoleResponse<T>> {
    const headers: Record<string, string> = {};
    const cookie = options.cookie === undefined ? this.cookie : options.cookie;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (cookie) headers.cookie = cookie;
    if (csrf) headers['x-csrf-token'] = csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await request(this.baseUrl + path, {
      method: method as any,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.dispatcher,
    });
    const text = await response.body.text();
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers))
      out[name] = Array.isArray(value) ? value.join('\n') : String(value);
    const parsed = text ? JSON.parse(text) : null;
    // Every successful console API answer is also checked against the contract the console parses it by.
    if (response.statusCode < 300 && parsed?.data !== undefined && path.startsWith('/admin/api/')) {
      checkAdminAnswer(method, path.slice('/admin/api'.length), parsed.data);
    }
    return { status: response.statusCode, headers: out, body: parsed, text };
  }

  async login(username: string, password: string): Promise<ConsoleResponse> {
    const res = await this.call('POST', '/admin/api/auth/login', { username, password });
    if (res.status === 200) {
      this.cookie = res.headers['set-cookie'].split(';')[0];
      this.csrf = res.body.data.csrf_token;
    }
    return res;
  }
}

/** Doctors straight into a tenant's backend database (the seed module's fast path does the same). */
export function insertMedicos(dataDir: string, slug: string, nomes: string[]): number[] {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`));
  try {
    const insert = db.prepare(
      `INSERT INTO medicos (nome, usuario, senha_hash, conselho_sigla, conselho_numero, conselho_uf, especialidade,
        papel_exame, papel_laudo, papel_solicitante, ativo, criado_em)
       VALUES (?, ?, 'x', 'CRM', ?, 'SP', 'Radiologia', 1, 1, 1, 1, '2026-01-01T00:00:00Z')`,
    );
    return nomes.map((nome, i) =>
      Number(insert.run(nome, `medico.${slug}.${Date.now()}.${i}`, String(100000 + i)).lastInsertRowid),
    );
  } finally {
    db.close();
  }
}

/** An operator of `role` made on the stack (if missing) and a console client signed in as it. */
export async function signedInOperator(
  stack: Pick<TestStack, 'gatewayDb' | 'gatewayUrl'>,
  username: string,
  password: string,
  role?: OperatorRole,
): Promise<ConsoleClient> {
  await ensureOperator(stack.gatewayDb.db, username, password, role);
  const client = new ConsoleClient(stack.gatewayUrl);
  const res = await client.login(username, password);
  if (res.status !== 200) throw new Error(`sign-in as ${username}: ${res.status} ${res.text}`);
  return client;
}
