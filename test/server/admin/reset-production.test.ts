import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { NEW_PATIENT } from '../../helpers/first-start.ts';
import { journalEntries } from '../../helpers/journal.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';
import { runCli } from '../../helpers/cli.ts';

// Issue 19 § 6: tenant reset is a development/test feature. With APP_ENV=production the console route, the
// automation route and the CLI refuse it (403 OPERATION_NOT_ALLOWED, naming ALLOW_TENANT_RESET) and touch
// neither the clinic's data nor its journal; with ALLOW_TENANT_RESET=true they reset, and the journal keeps
// every entry and gains the reset's.
vi.setConfig({ testTimeout: 90_000 });
const PASSWORD = 'correct-horse-battery';

const cli = (stack: TestStack, env: Record<string, string>, ...args: string[]) =>
  runCli({ ...stack.cliEnv, ...env }, ...args);

async function automationReset(stack: TestStack, token: string, body: unknown) {
  const res = await request(`${stack.gatewayUrl}/admin/api/automation/tenants/${stack.tenantSlug}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

/** A stack in production mode, an operator signed in, an all-clinics token, a patient written and read (journal entries). */
async function productionStack(env: Record<string, string>) {
  const stack = await startTestStack({ APP_ENV: 'production', ...env });
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  const client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
  const issued = await client.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: '*' });
  expect(issued.status).toBe(201);
  return { stack, client, token: issued.body.data.token as string };
}

async function writePatient(stack: TestStack): Promise<number> {
  const created = await stack.call({
    method: 'POST',
    path: '/v1/pacientes',
    body: NEW_PATIENT,
    idempotencyKey: randomUUID(),
  });
  expect(created.status, created.text).toBe(201);
  expect((await stack.call({ path: `/v1/pacientes/${created.body.data.id}` })).status).toBe(200);
  return created.body.data.id;
}

const journalOf = async (stack: TestStack) =>
  (await journalEntries(stack)).filter((e) => e.tenant_slug === stack.tenantSlug);

describe('APP_ENV=production, no opt-in: every way to reset is refused and nothing is touched', () => {
  let stack: TestStack;
  let client: ConsoleClient;
  let token: string;
  beforeAll(async () => {
    ({ stack, client, token } = await productionStack({}));
  });
  afterAll(async () => stack?.stop());

  it('the policy says disabled; the console route, with the finding\'s {"audit":true,"files":true} or {}, and the automation route answer 403 OPERATION_NOT_ALLOWED naming ALLOW_TENANT_RESET', async () => {
    const policy = await client.call('GET', '/admin/api/tenant-reset-policy');
    expect(policy.body.data).toEqual({
      allowed: false,
      app_env: 'production',
      opt_in: false,
      opt_in_variable: 'ALLOW_TENANT_RESET',
    });

    const patientId = await writePatient(stack);
    const before = await journalOf(stack);
    expect(before.length).toBeGreaterThanOrEqual(2);

    for (const body of [{ audit: true, files: true }, {}]) {
      const res = await client.call('POST', `/admin/api/tenants/${stack.tenantSlug}/reset`, body);
      expect(res.status, res.text).toBe(403);
      expect(res.body.error!.code).toBe('OPERATION_NOT_ALLOWED');
      expect(res.body.error!.message).toMatch(/ALLOW_TENANT_RESET=true/);
    }
    for (const body of [{ audit: true }, {}]) {
      const res = await automationReset(stack, token, body);
      expect(res.status).toBe(403);
      expect(res.body.error!.code).toBe('OPERATION_NOT_ALLOWED');
      expect(res.body.error!.message).toMatch(/ALLOW_TENANT_RESET=true/);
    }

    // The patient is still there, every earlier entry too, and the four refusals were journaled under the clinic.
    expect((await stack.call({ path: `/v1/pacientes/${patientId}` })).status).toBe(200);
    const after = await journalOf(stack);
    expect(after.map((e) => e.id).slice(0, before.length)).toEqual(before.map((e) => e.id));
    const refusals = after.slice(before.length).filter((e) => e.source === 'console');
    expect(refusals.map((e) => [e.status, e.error_code, JSON.parse(e.detail).action])).toEqual(
      Array(4).fill([403, 'OPERATION_NOT_ALLOWED', 'tenant.reset']),
    );
  });

  it('the CLI refuses too, naming the opt-in, and changes nothing', async () => {
    const patientId = await writePatient(stack);
    const before = (await journalOf(stack)).length;
    const res = await cli(stack, { APP_ENV: 'production' }, 'tenants', 'reset', stack.tenantSlug, '--yes');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/disabled with APP_ENV=production: set ALLOW_TENANT_RESET=true/);
    const after = await journalOf(stack);
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({ method: 'CLI', status: 403, error_code: 'OPERATION_NOT_ALLOWED' });
    expect((await stack.call({ path: `/v1/pacientes/${patientId}` })).status).toBe(200);
  });
});

describe('APP_ENV=production with ALLOW_TENANT_RESET=true: the reset runs and the journal keeps everything', () => {
  let stack: TestStack;
  let client: ConsoleClient;
  let token: string;
  beforeAll(async () => {
    // The console API reads the opt-in from the environment at start (like the ADMIN_* settings).
    process.env.ALLOW_TENANT_RESET = 'true';
    try {
      ({ stack, client, token } = await productionStack({ ALLOW_TENANT_RESET: 'true' }));
    } finally {
      delete process.env.ALLOW_TENANT_RESET;
    }
  });
  afterAll(async () => stack?.stop());

  it('the policy says allowed; the console and automation routes reset; no entry is removed and each reset adds one', async () => {
    const policy = await client.call('GET', '/admin/api/tenant-reset-policy');
    expect(policy.body.data).toEqual({
      allowed: true,
      app_env: 'production',
      opt_in: true,
      opt_in_variable: 'ALLOW_TENANT_RESET',
    });

    const patientId = await writePatient(stack);
    const before = await journalOf(stack);
    const viaConsole = await client.call('POST', `/admin/api/tenants/${stack.tenantSlug}/reset`, { files: true });
    expect(viaConsole.status, viaConsole.text).toBe(200);
    expect((await stack.call({ path: `/v1/pacientes/${patientId}` })).status).toBe(404);

    const again = await writePatient(stack);
    const viaToken = await automationReset(stack, token, {});
    expect(viaToken.status).toBe(200);
    expect((await stack.call({ path: `/v1/pacientes/${again}` })).status).toBe(404);
    // Still refused with the opt-in: deleting the journal.
    expect((await automationReset(stack, token, { audit: true })).status).toBe(400);

    const after = await journalOf(stack);
    expect(after.map((e) => e.id).slice(0, before.length)).toEqual(before.map((e) => e.id));
    const resets = after.filter((e) => e.status === 200 && JSON.parse(e.detail ?? '{}').action === 'tenant.reset');
    expect(resets.map((e) => JSON.parse(e.detail).via)).toEqual(['console', 'operator_token']);
  });

  it('the CLI resets with the opt-in in its environment and journals it', async () => {
    const patientId = await writePatient(stack);
    const res = await cli(
      stack,
      { APP_ENV: 'production', ALLOW_TENANT_RESET: 'true' },
      'tenants',
      'reset',
      stack.tenantSlug,
      '--yes',
      '--json',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ slug: stack.tenantSlug });
    expect((await journalOf(stack)).at(-1)).toMatchObject({ method: 'CLI', status: 200, error_code: null });
    expect((await stack.call({ path: `/v1/pacientes/${patientId}` })).status).toBe(404);
  });
});
