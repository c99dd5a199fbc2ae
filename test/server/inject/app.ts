import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { ALL_SCOPES, type Scope } from '../../../contracts/scopes.ts';
import { buildApp, type AppDeps } from '../../../server/app.ts';
import {
  BackendContractError,
  type Backend,
  type BackendCall,
  type BackendTransfer,
  type BackendResult,
} from '../../../server/backend/client.ts';
import { ephemeralConfig } from '../../../server/config.ts';
import { openGatewayDb } from '../../../server/db/database.ts';
import { KeysService } from '../../../server/keys/keys.service.ts';
import { sqliteKeySource } from '../../../server/keys/key-sources.ts';
import { loadMasterKey, SecretBox } from '../../../server/keys/secret-box.ts';
import { TenantsService } from '../../../server/tenants/tenants.service.ts';
import { sign } from '../../helpers/signed-client.ts';

/** What a fake route answers: `data` (checked by the caller's schema, as the real client does) and `meta`. */
export interface FakeAnswer {
  data: unknown;
  meta?: Record<string, unknown>;
}
export type FakeRoute = (call: BackendCall) => FakeAnswer | Promise<FakeAnswer>;

/**
 * backend-sim as the gateway's routes see it (the Backend interface), without a socket: routes by
 * `METHOD /path` (no query), every call recorded. A route it does not know fails the test loudly; an answer
 * the caller's schema refuses is a BackendContractError, as with the real client. Throw an ApiError from a
 * route to play a backend refusal.
 */
export class FakeBackend implements Backend {
  readonly calls: BackendCall[] = [];
  private readonly routes = new Map<string, FakeRoute>();

  constructor(routes: Record<string, FakeRoute> = {}) {
    // Clinic registration (TenantsService.create) is always accepted.
    this.on('POST /admin/tenants', (call) => ({ data: { ...(call.body as object), created: true } }));
    for (const [route, answer] of Object.entries(routes)) this.on(route, answer);
  }

  on(route: string, answer: FakeRoute): this {
    this.routes.set(route, answer);
    return this;
  }

  /** The calls to `METHOD /path`, in order. */
  callsTo(route: string): BackendCall[] {
    return this.calls.filter((c) => `${c.method} ${c.path}` === route);
  }

  async call<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S>>> {
    this.calls.push(call);
    const route = this.routes.get(`${call.method} ${call.path}`);
    if (!route) throw new Error(`fake backend: no route for ${call.method} ${call.path}`);
    const answer = await route(call);
    const checked = schema.safeParse(answer.data);
    if (!checked.success) throw new BackendContractError(`${call.method} ${call.path}: ${checked.error.message}`);
    return { status: 200, data: checked.data, meta: answer.meta ?? {} };
  }

  /** Answers parsed, as the real client answers a read the backend did not stamp. */
  relay<S extends z.ZodType>(call: BackendCall, schema: S): Promise<BackendResult<z.output<S>>> {
    return this.call(call, schema);
  }

  transfer(call: BackendTransfer): never {
    throw new Error(`fake backend: no byte transfers (${call.method} ${call.path})`);
  }
}

export interface InjectApp {
  app: FastifyInstance;
  tenantSlug: string;
  /** A key of that clinic with every scope. */
  creds: { apiKey: string; apiSecret: string; chaveId: number };
  /** A signed request through `app.inject` (no socket), signed as an integrator signs. */
  request(req: {
    method?: string;
    path: string;
    body?: unknown;
    idempotencyKey?: string;
  }): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * The gateway built in-process (`buildApp`, never listening) on a fresh data dir, with `backend` in place
 * of backend-sim: for the gateway's own route logic, fast. The end-to-end suites cover the real client.
 */
export async function injectApp(
  backend: Backend,
  options: {
    tenantSlug?: string;
    scopes?: Scope[];
    env?: Record<string, string>;
    explainSignature?: AppDeps['explainSignature'];
  } = {},
): Promise<InjectApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-inject-'));
  const config = ephemeralConfig(dataDir, options.env);
  const gatewayDb = await openGatewayDb(dataDir);
  const keys = new KeysService(
    gatewayDb.db,
    new SecretBox(loadMasterKey(dataDir, config.masterKeyHex)),
    sqliteKeySource(gatewayDb.sqlite),
  );
  const tenants = new TenantsService(gatewayDb.db, backend, () => keys.invalidate());
  const tenantSlug = options.tenantSlug ?? 'clinica-inject';
  await tenants.create({ slug: tenantSlug, nome: 'Clinica Inject' });
  const issued = await keys.create({ tenantSlug, scopes: options.scopes ?? [...ALL_SCOPES] });
  const creds = { apiKey: issued.api_key, apiSecret: issued.api_secret, chaveId: issued.chave_id };
  const app = await buildApp(config, {
    database: gatewayDb,
    keys,
    tenants,
    backend,
    explainSignature: options.explainSignature,
  });
  await app.ready();
  return {
    app,
    tenantSlug,
    creds,
    request: async ({ method = 'GET', path: target, body, idempotencyKey }) => {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const res = await app.inject({
        method: method as 'GET',
        url: target,
        headers: {
          'x-api-key': creds.apiKey,
          'x-timestamp': timestamp,
          'x-signature': sign(creds.apiSecret, timestamp, method, target, raw),
          ...(raw ? { 'content-type': 'application/json' } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        payload: raw || undefined,
      });
      return { status: res.statusCode, body: res.payload ? JSON.parse(res.payload) : null, headers: res.headers };
    },
    close: async () => {
      await app.close();
      await gatewayDb.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
