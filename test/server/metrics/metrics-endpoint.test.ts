import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { nowSeconds, type SignedResponse } from '../../helpers/signed-client.ts';
import { Scrape, scrape } from '../../helpers/prometheus.ts';
import { ConsoleClient } from '../admin/console-client.ts';
import { backendAdmin } from '../../helpers/fixtures.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { OperatorTokenStore } from '../../../server/operators/operator-tokens.ts';
import { operationId } from '../../../server/routes/operation-id.ts';
import {
  AUTH_REFUSAL_CODES,
  CORS_PREFLIGHT_OPERATION,
  UNKNOWN_OPERATION,
} from '../../../server/metrics/gateway-metrics.ts';

// Issue 31 § 1: GET /metrics, Prometheus text format, for operator tokens only; every counter moves by exactly the
// signed calls made (SQLite and PostgreSQL: this folder is in the postgres project of vitest.config.ts).
const PASSWORD = 'correct-horse-battery';
const QUOTA = 10;
/** Refusals of unauthenticated requests per client address and minute (this file's calls from 127.0.0.1 stay below). */
const OUTSIDER_QUOTA = 60;
let stack: TestStack;
let tokens: OperatorTokenStore;
let operatorId: number;
/** Bound to one clinic: a scrape is not restricted by a token's clinics. */
let token: string;

beforeAll(async () => {
  stack = await startTestStack({
    RATE_LIMIT_PER_MINUTE: String(QUOTA),
    UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(OUTSIDER_QUOTA),
  });
  operatorId = (await ensureOperator(stack.database.db, 'operador', PASSWORD)).operatorId;
  tokens = new OperatorTokenStore(stack.database.db);
  token = (await tokens.create({ operatorId, label: 'prometheus', tenants: [stack.tenantSlug], expiresInDays: 1 }))
    .token;
});

afterAll(async () => {
  await stack?.stop();
});

const scrapeNow = () => scrape(stack.gatewayUrl, token);
const getMetrics = (headers: Record<string, string> = {}) => stack.raw({ path: '/metrics', headers });

describe('GET /metrics answers operator tokens only', () => {
  test('no token, another scheme, a malformed, unknown, revoked or expired token, a disabled account: 401 ADMIN_UNAUTHENTICATED, none journaled', async () => {
    const revoked = await tokens.create({ operatorId, label: 'revogado', tenants: '*', expiresInDays: 1 });
    await tokens.revoke(revoked.view.id);
    const expired = await tokens.create({ operatorId, label: 'expirado', tenants: '*', expiresInDays: 1 });
    await stack.database.db
      .updateTable('operator_tokens')
      .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
      .where('id', '=', expired.view.id)
      .execute();
    const other = await ensureOperator(stack.database.db, 'desativado', PASSWORD);
    const disabled = await tokens.create({ operatorId: other.operatorId, label: 'x', tenants: '*', expiresInDays: 1 });
    await stack.database.db
      .updateTable('operators')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', other.operatorId)
      .execute();

    const refused: Array<[string, Record<string, string>, RegExp]> = [
      ['none', {}, /Authorization: Bearer/],
      ['basic', { authorization: `Basic ${Buffer.from('operador:x').toString('base64')}` }, /Authorization: Bearer/],
      ['malformed', { authorization: 'Bearer nao-e-um-token' }, /invalido/],
      ['unknown', { authorization: `Bearer ce_op_${'A'.repeat(43)}` }, /invalido/],
      ['revoked', { authorization: `Bearer ${revoked.token}` }, /revogado/],
      ['expired', { authorization: `Bearer ${expired.token}` }, /expirado/],
      ['disabled', { authorization: `Bearer ${disabled.token}` }, /desativada/],
    ];
    for (const [name, headers, message] of refused) {
      const res = await getMetrics(headers);
      expect(res.status, name).toBe(401);
      expect(res.body.data, name).toBeNull();
      expect(res.body.error.code, name).toBe('ADMIN_UNAUTHENTICATED');
      expect(res.body.error.message, name).toMatch(message);
      expect(res.headers['content-type'], name).toMatch(/^application\/json/);
      expect(res.headers['cache-control'], name).toBe('no-store');
      expect(res.text, name).not.toMatch(/gateway_http_requests_total/);
    }
    // Scrapes and their refusals are not API calls: not in the journal (docs/decisions.md M3).
    await stack.app.auditWriter.flush();
    const journaled = await stack.database.db
      .selectFrom('audit_log')
      .select('id')
      .where('path', 'like', '/metrics%')
      .execute();
    expect(journaled).toEqual([]);
  });

  test('a token bound to one clinic scrapes the whole gateway: Prometheus text, no-store, the named and the default metrics', async () => {
    const res = await getMetrics({ authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const parsed = new Scrape(res.text);
    const types: Record<string, string> = {
      gateway_http_requests_total: 'COUNTER',
      gateway_http_request_duration_seconds: 'HISTOGRAM',
      gateway_backend_request_duration_seconds: 'HISTOGRAM',
      gateway_auth_refusals_total: 'COUNTER',
      gateway_rate_limited_total: 'COUNTER',
      gateway_idempotency_replays_total: 'COUNTER',
      gateway_journal_bytes: 'GAUGE',
      gateway_journal_budget_bytes: 'GAUGE',
      gateway_journal_disk_bytes: 'GAUGE',
      // prom-client's defaults: process and Node.js.
      process_cpu_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
      nodejs_eventloop_lag_p99_seconds: 'GAUGE',
      nodejs_gc_duration_seconds: 'HISTOGRAM',
    };
    for (const [name, type] of Object.entries(types)) expect(parsed.families.get(name)?.type, name).toBe(type);
    // Every authentication code has its series from the start (rate() needs a zero to begin from).
    expect(
      parsed
        .series('gateway_auth_refusals_total')
        .map((s) => s.labels.code)
        .sort(),
    ).toEqual([...AUTH_REFUSAL_CODES].sort());
  });

  test("refused scrapes are charged to the client address's quota of refusals: past it, 429", async () => {
    const guess = (i: number) =>
      stack.raw({
        path: '/metrics',
        headers: { authorization: `Bearer ce_op_${String(i).padStart(43, 'A')}` },
        localAddress: '127.0.0.9',
      });
    // A token bucket: it refills while the guesses are sent, so the first 429 may come a few guesses past the quota.
    let refused = 0;
    let limited = await guess(0);
    while (limited.status === 401 && refused < OUTSIDER_QUOTA + 30) {
      refused++;
      limited = await guess(refused);
    }
    expect(refused).toBeGreaterThanOrEqual(OUTSIDER_QUOTA);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address, and the token itself, are not affected.
    expect((await getMetrics({ authorization: `Bearer ${token}` })).status).toBe(200);
  });
});

/** What the calls of a test should have moved, from what each answered. */
class Expected {
  readonly requests = new Map<string, number>();
  readonly durations = new Map<string, number>();
  readonly backend = new Map<string, number>();
  readonly refusals = new Map<string, number>();
  rateLimited = 0;
  replays = 0;

  record(operation: string, res: SignedResponse, options: { backend?: boolean } = {}): SignedResponse {
    bump(this.requests, `${operation}|${res.status}`);
    bump(this.durations, operation);
    if (options.backend) bump(this.backend, operation);
    const code: string | undefined = res.body?.error?.code;
    if (code === 'RATE_LIMIT_EXCEEDED') this.rateLimited++;
    else if (code && AUTH_REFUSAL_CODES.includes(code)) bump(this.refusals, code);
    if (res.headers['idempotency-replay'] === 'true') this.replays++;
    return res;
  }
}
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** Each series' growth between two scrapes, by a key made of its labels. */
function deltas(before: Scrape, after: Scrape, name: string, key: (labels: Record<string, string>) => string) {
  const out = new Map<string, number>();
  for (const { labels, value } of after.series(name)) {
    const grown = value - (before.series(name).find((s) => key(s.labels) === key(labels))?.value ?? 0);
    if (grown !== 0) out.set(key(labels), grown);
  }
  return out;
}

describe('every counter moves by exactly the signed calls made', () => {
  test('successes, auth refusals of six codes, rate limited, an idempotent replay, backend calls, unknown paths', async () => {
    const expected = new Expected();
    const ops = {
      ping: operationId('GET', '/v1/ping'),
      list: operationId('GET', '/v1/pacientes'),
      create: operationId('POST', '/v1/pacientes'),
    };
    const before = await scrapeNow();

    const a = await stack.newKey();
    for (let i = 0; i < 3; i++)
      expect(expected.record(ops.ping, await stack.call({ path: '/v1/ping' }, a)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await stack.call({ path: '/v1/pacientes?limit=5' }, a);
      expect(expected.record(ops.list, res, { backend: true }).status).toBe(200);
    }
    const write = {
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Maria da Silva', data_nascimento: '1985-03-14', sexo: 'FEM', celular: '11987654321' },
      idempotencyKey: 'metricas-1',
    };
    const created = expected.record(ops.create, await stack.call(write, a), { backend: true });
    expect(created.status, created.text).toBe(201);
    const replayed = expected.record(ops.create, await stack.call(write, a));
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotency-replay']).toBe('true');

    // Refused for authentication, with six different codes.
    for (let i = 0; i < 2; i++) {
      const res = await stack.call({ path: '/v1/ping', headers: { 'x-signature': '' } }, a);
      expect(expected.record(ops.ping, res).body.error.code).toBe('AUTH_MISSING_HEADER');
    }
    const badSignature = await stack.call({ path: '/v1/ping', signature: 'ab'.repeat(32) }, a);
    expect(expected.record(ops.ping, badSignature).body.error.code).toBe('AUTH_INVALID_SIGNATURE');
    const unknownKey = await stack.call({ path: '/v1/ping' }, { apiKey: `ce_live_${'0'.repeat(32)}`, apiSecret: 'x' });
    expect(expected.record(ops.ping, unknownKey).body.error.code).toBe('AUTH_KEY_NOT_FOUND');
    const stale = await stack.call({ path: '/v1/ping', timestamp: nowSeconds() - 3600 }, a);
    expect(expected.record(ops.ping, stale).body.error.code).toBe('AUTH_TIMESTAMP_EXPIRED');
    const narrow = await stack.newKey({ scopes: ['catalogos:read'] });
    const scope = await stack.call({ path: '/v1/pacientes?limit=5' }, narrow);
    expect(expected.record(ops.list, scope).body.error.code).toBe('AUTH_INSUFFICIENT_SCOPE');
    const gone = await stack.newKey();
    await stack.keys.revoke(gone.chaveId);
    const revoked = await stack.call({ path: '/v1/ping' }, gone);
    expect(expected.record(ops.ping, revoked).body.error.code).toBe('AUTH_KEY_REVOKED');

    // Over the per-key quota: the quota's calls answered, then two 429s.
    const busy = await stack.newKey();
    for (let i = 0; i < QUOTA; i++)
      expect(expected.record(ops.ping, await stack.call({ path: '/v1/ping' }, busy)).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(expected.record(ops.ping, await stack.call({ path: '/v1/ping' }, busy)).status).toBe(429);

    // Paths no route matches, signed or not, in /v1 and outside: one `unknown` value, never the path.
    for (const path of ['/v1/nao-existe', '/v1/pacientes/1/nada/42', '/v1/exames/abc/def']) {
      expect(expected.record(UNKNOWN_OPERATION, await stack.call({ path }, a)).status).toBe(404);
    }
    expect(expected.record(UNKNOWN_OPERATION, await stack.raw({ path: '/nada/aqui' })).status).toBe(404);

    const after = await scrapeNow();
    const byOperationStatus = (l: Record<string, string>) => `${l.operation}|${l.status}`;
    expect(deltas(before, after, 'gateway_http_requests_total', byOperationStatus)).toEqual(expected.requests);
    expect(deltas(before, after, 'gateway_http_request_duration_seconds', (l) => l.operation)).toEqual(
      expected.durations,
    );
    expect(deltas(before, after, 'gateway_backend_request_duration_seconds', (l) => l.operation)).toEqual(
      expected.backend,
    );
    expect(deltas(before, after, 'gateway_auth_refusals_total', (l) => l.code)).toEqual(expected.refusals);
    expect([...expected.refusals.keys()]).toHaveLength(6);
    expect(after.value('gateway_rate_limited_total') - before.value('gateway_rate_limited_total')).toBe(2);
    expect(expected.rateLimited).toBe(2);
    expect(after.value('gateway_idempotency_replays_total') - before.value('gateway_idempotency_replays_total')).toBe(
      1,
    );
    expect(expected.replays).toBe(1);
  });

  test('a failing backend is timed too: an HTTP 500 and a dropped connection, each call one observation and a 503', async () => {
    const admin = backendAdmin(stack);
    const list = operationId('GET', '/v1/pacientes');
    const key = await stack.newKey();
    const before = await scrapeNow();
    for (const kind of ['http500', 'drop'] as const) {
      const fault = await admin('POST', '/admin/faults', {
        tenant: stack.tenantSlug,
        route: 'GET /tenants/*/pacientes',
        kind,
        failure_rate: 1,
      });
      expect(fault.status).toBe(201);
      try {
        for (let i = 0; i < 2; i++) {
          const res = await stack.call({ path: '/v1/pacientes?limit=5' }, key);
          expect(res.status, kind).toBe(503);
          expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
        }
      } finally {
        await admin('DELETE', `/admin/faults/${fault.body.data.id}`);
      }
    }
    const after = await scrapeNow();
    expect(deltas(before, after, 'gateway_backend_request_duration_seconds', (l) => l.operation)).toEqual(
      new Map([[list, 4]]),
    );
    expect(deltas(before, after, 'gateway_http_requests_total', (l) => `${l.operation}|${l.status}`)).toEqual(
      new Map([[`${list}|503`, 4]]),
    );
  });

  test('the operation label is bounded: operation ids, `unknown` for 25 different unknown paths, never a raw path', async () => {
    const before = await scrapeNow();
    for (let i = 0; i < 25; i++) {
      const res = await stack.call({ path: `/v1/caminho-${i}/${i * 7}` });
      expect(res.status).toBe(404);
    }
    const after = await scrapeNow();
    const grown = deltas(before, after, 'gateway_http_requests_total', (l) => `${l.operation}|${l.status}`);
    expect(grown).toEqual(new Map([[`${UNKNOWN_OPERATION}|404`, 25]]));
    const allowed = new Set([
      ...stack.app.operations.map(({ operation }) => operationId(operation.method, `/v1${operation.url}`)),
      UNKNOWN_OPERATION,
      CORS_PREFLIGHT_OPERATION,
    ]);
    for (const name of [
      'gateway_http_requests_total',
      'gateway_http_request_duration_seconds',
      'gateway_backend_request_duration_seconds',
    ]) {
      for (const { labels } of after.series(name)) {
        expect(allowed.has(labels.operation), `${name} ${labels.operation}`).toBe(true);
        expect(labels.operation).not.toMatch(/\//);
      }
    }
  });

  test('scrapes, health probes and the console API are not counted as API calls', async () => {
    const before = await scrapeNow();
    await stack.raw({ path: '/healthz' });
    await stack.raw({ path: '/admin/api/audit/storage' });
    await getMetrics();
    const after = await scrapeNow();
    expect(deltas(before, after, 'gateway_http_requests_total', (l) => `${l.operation}|${l.status}`)).toEqual(
      new Map(),
    );
  });
});

describe('the journal gauges are its budget', () => {
  test('entry bytes by class, AUDIT_MAX_BYTES and the footprint: what the console API reports, moving with calls', async () => {
    const console = new ConsoleClient(stack.gatewayUrl);
    expect((await console.login('operador', PASSWORD)).status).toBe(200);
    const compare = async () => {
      const storage = (await console.call('GET', '/admin/api/audit/storage')).body.data;
      const scraped = await scrapeNow();
      for (const kind of ['verified', 'unverified', 'unattributed']) {
        expect(scraped.value('gateway_journal_bytes', { class: kind }), kind).toBe(storage.journal.totals[kind].bytes);
      }
      expect(scraped.value('gateway_journal_budget_bytes')).toBe(storage.journal.max_bytes);
      expect(scraped.value('gateway_journal_budget_bytes')).toBe(stack.config.audit.maxBytes);
      expect(scraped.value('gateway_journal_disk_bytes')).toBe(storage.journal.disk.footprint_bytes);
      return scraped.value('gateway_journal_bytes', { class: 'verified' });
    };
    const first = await compare();
    const key = await stack.newKey();
    for (let i = 0; i < 3; i++) expect((await stack.call({ path: '/v1/ping' }, key)).status).toBe(200);
    expect(await compare()).toBeGreaterThan(first);
  });
});

describe('docs/grafana/gateway.json', () => {
  test('every metric its panels query is exposed by a scrape', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../../docs/grafana/gateway.json', import.meta.url), 'utf8'));
    const expressions: string[] = dashboard.panels.flatMap((panel: { targets?: Array<{ expr: string }> }) =>
      (panel.targets ?? []).map((t) => t.expr),
    );
    expect(expressions.length).toBeGreaterThan(10);
    const scraped = await scrapeNow();
    const queried = new Set(
      expressions.flatMap((expr) => expr.match(/\b(?:gateway|process|nodejs)_[a-z0-9_]+/g) ?? []),
    );
    const exposed = (name: string) =>
      scraped.has(name) ||
      (/_(bucket|sum|count)$/.test(name) &&
        scraped.families.get(name.replace(/_(bucket|sum|count)$/, ''))?.type === 'HISTOGRAM');
    const missing = [...queried].filter((name) => !exposed(name));
    expect(missing).toEqual([]);
    // The alert gauges (server/alerts/alert-metrics.ts) have their panels too.
    for (const name of ['gateway_api_keys_expiring', 'gateway_api_key_failure_ratio'])
      expect(queried.has(name), name).toBe(true);
  });
});
