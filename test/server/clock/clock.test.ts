import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { nowSeconds, type SignedRequest } from '../../helpers/signed-client.ts';
import { TenantFixtures } from '../../helpers/fixtures.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { formatDuration, parseDuration } from '../../../server/clock.ts';
import { startBackendSim, type RunningBackendSim } from '../../../backend-sim/main.ts';
import { ConsoleClient } from '../admin/console-client.ts';

// Issue 13 § Clock control: in development mode an operator moves the appliance clock ahead (console
// API, CLI) and every time rule of the spec follows it: the ±300 s signing window, the idempotency
// lifetime (gateway and backend-sim markers), the audit retention, presigned URL expiry and "today"
// in backend-sim. Production mode refuses the control and keeps real time. Real processes, signed HTTP.

vi.setConfig({ testTimeout: 90_000 });

const HOUR = 3600;
const DAY = 24 * HOUR;
const PASSWORD = 'clock-control-password';
const TSX = path.resolve('node_modules/.bin/tsx');

let stack: TestStack;
let operator: ConsoleClient;

async function login(s: TestStack): Promise<ConsoleClient> {
  await ensureOperator(s.gatewayDb.db, 'operador', PASSWORD);
  const client = new ConsoleClient(s.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
  return client;
}

/** Moves the clock `seconds` further ahead through the console API; returns the new offset in seconds. */
async function advance(seconds: number, client = operator): Promise<number> {
  const res = await client.call('PUT', '/admin/api/clock', { advance_seconds: seconds });
  expect(res.status, res.text).toBe(200);
  return res.body.data.offset_seconds;
}

/** What an integrator does once told the appliance runs ahead: sign with the appliance time. */
const signedAt = (offsetSeconds: number, req: SignedRequest, s = stack) =>
  s.call({ ...req, timestamp: nowSeconds() + offsetSeconds });

const dateOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

function cli(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      ['appliance/cli/main.ts', ...args],
      { env: { ...process.env, DATA_DIR: dataDir, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  stack = await startTestStack();
  operator = await login(stack);
});
afterAll(async () => stack?.stop());
// Every test starts at real time.
afterEach(async () => {
  expect((await operator.call('DELETE', '/admin/api/clock')).status).toBe(200);
});

describe('durations', () => {
  test('parse and format', () => {
    expect(parseDuration('301s')).toBe(301_000);
    expect(parseDuration('25h')).toBe(25 * HOUR * 1000);
    expect(parseDuration('30d')).toBe(30 * DAY * 1000);
    expect(parseDuration('1d2h30m')).toBe((DAY + 2 * HOUR + 1800) * 1000);
    for (const bad of ['', '25', 'h', '-1h', '1.5h', '2x', 'one hour'])
      expect(() => parseDuration(bad)).toThrow(/invalid duration/);
    expect(formatDuration(25 * HOUR * 1000)).toBe('1d 1h');
    expect(formatDuration(301_000)).toBe('5m 1s');
    expect(formatDuration(0)).toBe('0s');
  });
});

describe('development mode: the clock moves and every time rule follows', () => {
  test('GET /admin/api/clock at real time; PUT validates; the changes are console actions in the audit log', async () => {
    stack.app.auditWriter.flush();
    const { last } = stack.gatewayDb.sqlite.prepare('SELECT COALESCE(MAX(id), 0) AS last FROM audit_log').get() as {
      last: number;
    };
    const state = await operator.call('GET', '/admin/api/clock');
    expect(state.status).toBe(200);
    expect(state.body.data).toMatchObject({
      enabled: true,
      shifted: false,
      offset_seconds: 0,
      offset_text: '0s',
      changed_at: null,
    });
    expect(Math.abs(Date.parse(state.body.data.appliance_time) - Date.now())).toBeLessThan(5000);

    for (const body of [
      { offset_seconds: -1 },
      { advance_seconds: 0 },
      { advance_seconds: 60, offset_seconds: 60 },
      {},
      { avancar: '25h' },
      { offset_seconds: 1e12 },
    ]) {
      const res = await operator.call('PUT', '/admin/api/clock', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error?.code).toBe('VAL_INVALID_PARAM');
    }

    const set = await operator.call('PUT', '/admin/api/clock', { offset_seconds: 2 * HOUR });
    expect(set.body.data).toMatchObject({ shifted: true, offset_seconds: 2 * HOUR, offset_text: '2h' });
    expect(await advance(HOUR)).toBe(3 * HOUR);
    const reset = await operator.call('DELETE', '/admin/api/clock');
    expect(reset.body.data).toMatchObject({ shifted: false, offset_seconds: 0 });

    stack.app.auditWriter.flush();
    const rows = stack.gatewayDb.sqlite
      .prepare(
        `SELECT detail, status FROM audit_log WHERE id > ? AND source = 'console' AND path = '/admin/api/clock' ORDER BY id`,
      )
      .all(last) as { detail: string; status: number }[];
    const details = rows.filter((r) => r.status === 200).map((r) => JSON.parse(r.detail));
    expect(details).toEqual([
      { action: 'clock.set', offset_before_seconds: 0, offset_seconds: 2 * HOUR },
      { action: 'clock.set', offset_before_seconds: 2 * HOUR, offset_seconds: 3 * HOUR },
      { action: 'clock.reset', offset_before_seconds: 3 * HOUR, offset_seconds: 0 },
    ]);
  });

  test('25 h ahead: a 24-hour-old Idempotency-Key executes again; real-time signatures are expired, appliance-time ones pass', async () => {
    const key = `clock-${randomUUID()}`;
    const body = { nome: 'PACIENTE RELOGIO', data_nascimento: '1990-05-17' };
    const first = await stack.call({ method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotency-replay']).toBe('false');

    // 23 h later the key is still inside its 24 h: the stored answer is replayed.
    let offset = await advance(23 * HOUR);
    const replay = await signedAt(offset, { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    expect(replay.status, replay.text).toBe(201);
    expect(replay.headers['idempotency-replay']).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);

    // 25 h after the first use the key has expired at the gateway and at backend-sim (its write marker):
    // the same request executes again and creates a second patient.
    offset = await advance(2 * HOUR);
    expect(offset).toBe(25 * HOUR);
    const again = await signedAt(offset, { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    expect(again.status, again.text).toBe(201);
    expect(again.headers['idempotency-replay']).toBe('false');
    expect(again.body.meta.idempotent_replay).toBe(false);
    expect(again.body.data.id).not.toBe(first.body.data.id);
    // backend-sim stamps the new patient with the appliance time.
    expect(dateOf(Date.parse(again.body.data.criado_em))).toBe(dateOf(Date.now() + offset * 1000));
    // And the new execution starts a new 24 h, on the appliance clock: 23 h further it still replays.
    const replayAgain = await signedAt(offset, { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    expect(replayAgain.body.data.id).toBe(again.body.data.id);
    const stored = stack.gatewayDb.sqlite
      .prepare('SELECT created_at, expires_at FROM idempotency_keys WHERE idem_key = ?')
      .get(key) as {
      created_at: number;
      expires_at: number;
    };
    expect(Math.abs(stored.created_at - (Date.now() + offset * 1000))).toBeLessThan(5000);
    expect(stored.expires_at - stored.created_at).toBe(DAY * 1000);
    const later = await advance(23 * HOUR);
    const stillReplayed = await signedAt(later, { method: 'POST', path: '/v1/pacientes', body, idempotencyKey: key });
    expect(stillReplayed.headers['idempotency-replay']).toBe('true');
    expect(stillReplayed.body.data.id).toBe(again.body.data.id);
    expect(
      await operator
        .call('PUT', '/admin/api/clock', { offset_seconds: offset })
        .then((r) => r.body.data.offset_seconds),
    ).toBe(offset);

    // The ±300 s window is measured against the appliance clock.
    const realTime = await stack.call({ path: '/v1/ping' });
    expect(realTime.status).toBe(401);
    expect(realTime.body.error.code).toBe('AUTH_TIMESTAMP_EXPIRED');
    const applianceTime = await signedAt(offset, { path: '/v1/ping' });
    expect(applianceTime.status, applianceTime.text).toBe(200);
    expect(Math.abs(Date.parse(applianceTime.body.data.server_time) - (Date.now() + offset * 1000))).toBeLessThan(5000);
    // Still ±300 s around it.
    expect((await signedAt(offset - 301, { path: '/v1/ping' })).body.error?.code).toBe('AUTH_TIMESTAMP_EXPIRED');
    expect((await signedAt(offset - 290, { path: '/v1/ping' })).status).toBe(200);
  });

  test('back at real time, real-time signatures pass again and ping shows real time', async () => {
    await advance(25 * HOUR);
    expect((await stack.call({ path: '/v1/ping' })).status).toBe(401);
    expect((await operator.call('DELETE', '/admin/api/clock')).body.data.offset_seconds).toBe(0);
    const ping = await stack.call({ path: '/v1/ping' });
    expect(ping.status).toBe(200);
    expect(Math.abs(Date.parse(ping.body.data.server_time) - Date.now())).toBeLessThan(5000);
  });

  test('backend-sim: "today" is the appliance date (the next free slot of an agenda open every day)', async () => {
    const fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
    const unidade = fx.insert('unidades', { nome: 'UNIDADE RELOGIO' });
    const medico = fx.medico({ nome: 'MEDICO RELOGIO', papel_exame: 1 });
    const procedimento = fx.insert('procedimentos', { nome: 'PROCEDIMENTO RELOGIO' });
    const agenda = fx.insert('agenda_configs', {
      nome: 'Agenda Relogio',
      tipo_vinculo: 'medico',
      medico_id: medico,
      unidade_id: unidade,
      data_inicio: '2020-01-01',
      criado_em: '2020-01-01T08:00:00Z',
    });
    for (let d = 0; d < 7; d++)
      fx.insert('agenda_horarios', {
        agenda_config_id: agenda,
        dia_semana: d,
        hora_inicio: '00:00',
        hora_fim: '23:30',
      });
    fx.insert('agenda_procedimentos', { agenda_config_id: agenda, procedimento_id: procedimento, duracao_minutos: 30 });
    fx.close();

    const nextSlot = async (offset: number) => {
      const res = await signedAt(offset, { path: `/v1/agenda/slots?procedimento_id=${procedimento}&horizonte_dias=3` });
      expect(res.status, res.text).toBe(200);
      return res.body.data[0].proximo_slot.data as string;
    };
    // Today, or tomorrow once today's last slot has passed.
    const around = (epochMs: number) => [dateOf(epochMs), dateOf(epochMs + DAY * 1000)];
    expect(around(Date.now())).toContain(await nextSlot(0));
    const offset = await advance(10 * DAY);
    expect(around(Date.now() + offset * 1000)).toContain(await nextSlot(offset));
  });

  test('audit retention (30 days) counts on the appliance clock: an entry made now goes once the clock is 31 days ahead', async () => {
    const made = await stack.call({ path: '/v1/ping' });
    expect(made.status).toBe(200);
    const requestId = made.body.meta.request_id as string;
    const row = () => {
      stack.app.auditWriter.flush();
      return stack.gatewayDb.sqlite.prepare('SELECT ts FROM audit_log WHERE request_id = ?').get(requestId) as
        | { ts: string }
        | undefined;
    };
    expect(Math.abs(Date.parse(row()!.ts) - Date.now())).toBeLessThan(5000);

    // Moving the clock runs the retention purge at once; 29 days is inside the 30.
    let offset = await advance(29 * DAY);
    expect(row()).toBeDefined();
    offset = await advance(2 * DAY);
    expect(offset).toBe(31 * DAY);
    expect(row()).toBeUndefined();

    // Entries made now carry the appliance time.
    const later = await signedAt(offset, { path: '/v1/ping' });
    const laterTs = (
      stack.gatewayDb.sqlite
        .prepare('SELECT ts FROM audit_log WHERE request_id = ?')
        .get(later.body.meta.request_id) as { ts: string }
    ).ts;
    expect(Math.abs(Date.parse(laterTs) - (Date.now() + offset * 1000))).toBeLessThan(5000);
  });

  test('presigned URL expiry (300 s) counts on the appliance clock of the embedded storage', async () => {
    const fx = new TenantFixtures(stack.dataDir, stack.tenantSlug);
    const pacienteId = fx.paciente({ nome: 'PACIENTE ANEXO RELOGIO' });
    fx.close();
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2000)]);
    const created = await stack.call({
      method: 'POST',
      path: `/v1/pacientes/${pacienteId}/prontuarios`,
      body: { anexos: [{ nome: 'exame.pdf', base64: bytes.toString('base64') }] },
      idempotencyKey: `clock-file-${randomUUID()}`,
    });
    expect(created.status, created.text).toBe(201);
    const urlPath = `/v1/pacientes/${pacienteId}/prontuarios/anexos/${created.body.data.anexos[0].id}/url`;
    const presign = async (offset: number) => {
      const redirect = await signedAt(offset, { path: urlPath });
      expect(redirect.status, redirect.text).toBe(302);
      return redirect.headers.location;
    };
    // Two URLs presigned now (each is single-use).
    const [early, late] = [await presign(0), await presign(0)];

    let offset = await advance(280);
    const stillValid = await fetch(early);
    expect(stillValid.status).toBe(200);
    expect(Buffer.from(await stillValid.arrayBuffer()).equals(bytes)).toBe(true);

    offset = await advance(21);
    expect(offset).toBe(301);
    const expired = await fetch(late);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/Request has expired/);

    // A URL presigned now is dated with the appliance time and valid its 300 s from it.
    const fresh = await presign(offset);
    const signedFor = new URL(fresh).searchParams.get('X-Amz-Date')!;
    expect(signedFor.slice(0, 8)).toBe(dateOf(Date.now() + offset * 1000).replaceAll('-', ''));
    expect((await fetch(fresh)).status).toBe(200);
  });

  test('CLI: `clock advance 25h` moves the running stack within a second or two; `clock show`; `clock reset`', async () => {
    const moved = await cli(stack.dataDir, ['clock', 'advance', '25h']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/1d 1h ahead/);
    const offset = 25 * HOUR;
    const ping = await eventually(
      () => signedAt(offset, { path: '/v1/ping' }),
      (res) => res.status === 200,
    );
    expect(ping.status).toBe(200);
    expect(Math.abs(Date.parse(ping.body.data.server_time) - (Date.now() + offset * 1000))).toBeLessThan(5000);
    expect((await operator.call('GET', '/admin/api/clock')).body.data).toMatchObject({
      shifted: true,
      offset_seconds: offset,
    });

    const shown = await cli(stack.dataDir, ['clock', 'show', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ enabled: true, shifted: true, offset_seconds: offset });
    // Cumulative: the console and the CLI move the same clock.
    expect(await advance(HOUR)).toBe(26 * HOUR);
    const more = await cli(stack.dataDir, ['clock', 'advance', '1d', '--json']);
    expect(JSON.parse(more.stdout).offset_seconds).toBe(50 * HOUR);

    const reset = await cli(stack.dataDir, ['clock', 'reset']);
    expect(reset.code).toBe(0);
    const real = await eventually(
      () => stack.call({ path: '/v1/ping' }),
      (res) => res.status === 200,
    );
    expect(real.status).toBe(200);

    const bad = await cli(stack.dataDir, ['clock', 'advance', 'tomorrow']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid duration/);
  });
});

describe('production mode: no clock control, real time whatever DATA_DIR/clock.json says', () => {
  let prod: TestStack;
  let prodOperator: ConsoleClient;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-clock-prod-'));
  beforeAll(async () => {
    // Left by a development run: production ignores it.
    writeFileSync(
      path.join(dataDir, 'clock.json'),
      JSON.stringify({ offset_ms: 25 * HOUR * 1000, changed_at: new Date().toISOString() }),
    );
    prod = await startTestStack({ APP_ENV: 'production' }, { dataDir });
    prodOperator = await login(prod);
  });
  afterAll(async () => {
    await prod?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the routes answer 403 OPERATION_NOT_ALLOWED; GET says disabled; signing and ping use real time', async () => {
    const state = await prodOperator.call('GET', '/admin/api/clock');
    expect(state.status).toBe(200);
    expect(state.body.data).toMatchObject({ enabled: false, shifted: false, offset_seconds: 0 });
    for (const [method, body] of [
      ['PUT', { advance_seconds: 90_000 }],
      ['PUT', { offset_seconds: 0 }],
      ['DELETE', undefined],
    ] as const) {
      const res = await prodOperator.call(method, '/admin/api/clock', body);
      expect(res.status, `${method} ${res.text}`).toBe(403);
      expect(res.body.error?.code).toBe('OPERATION_NOT_ALLOWED');
    }
    const ping = await prod.call({ path: '/v1/ping' });
    expect(ping.status).toBe(200);
    expect(Math.abs(Date.parse(ping.body.data.server_time) - Date.now())).toBeLessThan(5000);
    expect((await prod.call({ path: '/v1/ping', timestamp: nowSeconds() + 25 * HOUR })).body.error?.code).toBe(
      'AUTH_TIMESTAMP_EXPIRED',
    );
  });

  test('the CLI refuses to move it', async () => {
    const res = await cli(dataDir, ['clock', 'advance', '1h'], { APP_ENV: 'production' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/only available in development mode/);
    const shown = await cli(dataDir, ['clock', 'show', '--json'], { APP_ENV: 'production' });
    expect(JSON.parse(shown.stdout)).toMatchObject({ enabled: false, offset_seconds: 0 });
  });
});

describe('backend-sim run as its own process (BACKEND_URL): the gateway tells it the offset', () => {
  let sim: RunningBackendSim;
  let gw: TestStack;
  let gwOperator: ConsoleClient;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-clock-ext-'));
  const token = randomBytes(24).toString('hex');
  const simClock = async () => {
    const res = await fetch(`${sim.url}/admin/clock`, { headers: { 'x-internal-token': token } });
    return ((await res.json()) as { data: { offset_ms: number; agora: string } }).data;
  };
  beforeAll(async () => {
    sim = await startBackendSim({ dataDir, internalToken: token, port: 0 });
    gw = await startTestStack({ BACKEND_URL: sim.url, BACKEND_TOKEN: token }, { dataDir });
    gwOperator = await login(gw);
  });
  afterAll(async () => {
    await gw?.stop();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('moved and reset through the console API, backend-sim follows: its clock and the patients it stamps', async () => {
    const offset = await advance(10 * DAY, gwOperator);
    const shifted = await simClock();
    expect(shifted.offset_ms).toBe(offset * 1000);
    expect(dateOf(Date.parse(shifted.agora))).toBe(dateOf(Date.now() + offset * 1000));
    const created = await signedAt(
      offset,
      {
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: 'PACIENTE EXTERNO', data_nascimento: '1980-01-01' },
        idempotencyKey: randomUUID(),
      },
      gw,
    );
    expect(created.status, created.text).toBe(201);
    expect(dateOf(Date.parse(created.body.data.criado_em))).toBe(dateOf(Date.now() + offset * 1000));

    expect((await gwOperator.call('DELETE', '/admin/api/clock')).status).toBe(200);
    expect((await simClock()).offset_ms).toBe(0);
  });
});
