import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { runCli } from '../../helpers/cli.ts';

/**
 * Issue 31 § 3 and § 4 on the CLI: `keys create --expires-in-days | --expires-at`, `keys update --expires-at |
 * --no-expiry`, and `keys list`'s filters (--search, --scope, --status, --expiring) with --json. On SQLite and
 * PostgreSQL (vitest.config.ts lists this file for the postgres project).
 */
vi.setConfig({ testTimeout: 120_000 });
const DAY_MS = 86_400_000;
const SLUG = 'clinica-cli-exp';
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant(SLUG);
});
afterAll(async () => stack?.stop());

const cli = (...args: string[]) => runCli(stack.cliEnv, ...args);

async function listJson(...filters: string[]) {
  const res = await cli('keys', 'list', '--tenant', SLUG, ...filters, '--json');
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Array<{ id: number; label: string; expires_at: string | null; expired: boolean }>;
}

describe('keys create, update and list with an expiry', () => {
  test('create --expires-in-days / --expires-at; list --json carries expires_at and expired; the key works', async () => {
    const before = stack.clock.now();
    const inDays = await cli(
      'keys',
      'create',
      '--tenant',
      SLUG,
      '--scopes',
      'read-only',
      '--label',
      'piloto duas semanas',
      '--expires-in-days',
      '14',
      '--json',
    );
    expect(inDays.code, inDays.stderr).toBe(0);
    const issued = JSON.parse(inDays.stdout);
    const at = new Date(Date.now() + 400 * DAY_MS).toISOString();
    const onDate = await cli(
      'keys',
      'create',
      '--tenant',
      SLUG,
      '--scopes',
      'all',
      '--label',
      'datada',
      '--expires-at',
      at,
      '--json',
    );
    expect(onDate.code, onDate.stderr).toBe(0);
    const dated = JSON.parse(onDate.stdout);

    const rows = await listJson();
    const pilot = rows.find((k) => k.id === issued.chave_id)!;
    expect(Date.parse(pilot.expires_at!)).toBeGreaterThanOrEqual(before + 14 * DAY_MS);
    expect(pilot.expired).toBe(false);
    expect(rows.find((k) => k.id === dated.chave_id)?.expires_at).toBe(at);

    const ping = await stack.call({ path: '/v1/ping' }, { apiKey: issued.api_key, apiSecret: issued.api_secret });
    expect(ping.status).toBe(200);

    const table = await cli('keys', 'list', '--tenant', SLUG);
    expect(table.stdout).toMatch(/expires/);
    expect(table.stdout).toContain(at);
  });

  test('update --expires-at, then --no-expiry; --json prints the key', async () => {
    const key = await stack.newKey({ tenant: SLUG });
    const at = new Date(Date.now() + 30 * DAY_MS).toISOString();
    const set = await cli('keys', 'update', String(key.chaveId), '--expires-at', at, '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: key.chaveId, expires_at: at, expired: false });
    const cleared = await cli('keys', 'update', String(key.chaveId), '--no-expiry', '--json');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ id: key.chaveId, expires_at: null });
  });

  test('bad expiry arguments: clear messages, non-zero exit', async () => {
    const past = new Date(Date.now() - DAY_MS).toISOString();
    const cases: Array<[string[], RegExp]> = [
      [['keys', 'create', '--tenant', SLUG, '--scopes', 'all', '--expires-in-days', '0'], /1 to 1825/],
      [['keys', 'create', '--tenant', SLUG, '--scopes', 'all', '--expires-in-days', '1826'], /1 to 1825/],
      [['keys', 'create', '--tenant', SLUG, '--scopes', 'all', '--expires-at', 'amanha'], /ISO 8601 date-time/],
      [['keys', 'create', '--tenant', SLUG, '--scopes', 'all', '--expires-at', past], /not in the future/],
      [
        [
          'keys',
          'create',
          '--tenant',
          SLUG,
          '--scopes',
          'all',
          '--expires-in-days',
          '3',
          '--expires-at',
          '2030-01-01T00:00:00Z',
        ],
        /cannot be used with/,
      ],
      [
        ['keys', 'update', String(stack.creds.chaveId), '--no-expiry', '--expires-at', '2030-01-01T00:00:00Z'],
        /cannot be used with/,
      ],
      [['keys', 'update', String(stack.creds.chaveId)], /nothing to change/],
    ];
    for (const [args, message] of cases) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toMatch(message);
    }
  });
});

describe('keys list filters', () => {
  test('--search (label, prefix, #id), --scope, --status, --expiring', async () => {
    const slug = 'clinica-cli-filtros';
    await stack.createTenant(slug);
    const reader = await stack.keys.create({
      tenantSlug: slug,
      scopes: ['pacientes:read'],
      label: 'Laboratorio Norte',
    });
    const soon = await stack.keys.create({
      tenantSlug: slug,
      scopes: ['exames:read'],
      label: 'Piloto',
      expiresInDays: 3,
    });
    const later = await stack.keys.create({
      tenantSlug: slug,
      scopes: ['exames:read'],
      label: 'Anual',
      expiresInDays: 300,
    });
    const revoked = await stack.keys.create({ tenantSlug: slug, scopes: ['exames:read'], label: 'Antiga' });
    await stack.keys.revoke(revoked.chave_id);
    const ids = async (...filters: string[]) => {
      const res = await cli('keys', 'list', '--tenant', slug, ...filters, '--json');
      expect(res.code, res.stderr).toBe(0);
      return (JSON.parse(res.stdout) as Array<{ id: number }>).map((k) => k.id);
    };
    expect(await ids('--search', 'norte')).toEqual([reader.chave_id]);
    expect(await ids('--search', soon.api_key.slice(0, 16))).toEqual([soon.chave_id]);
    expect(await ids('--search', `#${later.chave_id}`)).toEqual([later.chave_id]);
    expect(await ids('--scope', 'pacientes:read')).toEqual([reader.chave_id]);
    expect(await ids('--status', 'revoked')).toEqual([revoked.chave_id]);
    expect(await ids('--status', 'current')).toEqual([reader.chave_id, soon.chave_id, later.chave_id]);
    expect(await ids('--expiring')).toEqual([soon.chave_id]);
    expect(await ids('--expiring', '400')).toEqual([soon.chave_id, later.chave_id]);
    expect(await ids('--scope', 'exames:read', '--status', 'active')).toEqual([soon.chave_id, later.chave_id]);
    const bad = await cli('keys', 'list', '--status', 'vencida');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/one of: active, expired/);
  });
});
