import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import {
  clinicLists,
  NEW_PATIENT,
  startFirstStartStack,
  writeOnDemo,
  type FirstStartStack,
} from '../../helpers/first-start.ts';
import { journalRows } from '../../helpers/journal.ts';

// Issue 13 § Reset a tenant, the CLI path: `npm run cli -- tenants reset SLUG [--files] [--yes]`
// against a running stack whose default tenants came from the real first start. Issue 19: the journal is
// kept, and the CLI, which acts on DATA_DIR directly, writes the reset's entry itself.
vi.setConfig({ testTimeout: 120_000 });
let first: FirstStartStack;
beforeAll(async () => {
  first = await startFirstStartStack();
}, 180_000);
afterAll(async () => first?.stop());

const TSX = path.resolve('node_modules/.bin/tsx');

/** The clinic's journal entries, oldest first. */
const journalOf = (slug: string) => journalRows(first.stack).filter((e) => e.tenant_slug === slug);

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DATA_DIR: first.dataDir, BACKEND_URL: first.stack.backendUrl };
    execFile(TSX, ['appliance/cli/main.ts', ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('tenants reset --yes: every list is back to its first-start content and an Idempotency-Key used before executes again', async () => {
  const { stack, demo } = first;
  const watched = [1, 2, 3];
  const before = await clinicLists(stack, demo, watched);
  const written = await writeOnDemo(stack, demo);
  expect(await clinicLists(stack, demo, watched)).not.toEqual(before);

  const journalBefore = journalOf('demo');
  expect(journalBefore.length).toBeGreaterThan(0);
  const res = await cli('tenants', 'reset', 'demo', '--yes', '--json');
  expect(res.code, res.stderr).toBe(0);
  const result = JSON.parse(res.stdout);
  expect(result).toMatchObject({
    slug: 'demo',
    nome: 'Clinica Demo',
    idempotency_keys_removed: 4,
    idempotency_markers_removed: 4,
    files_removed: null,
  });
  expect(result).not.toHaveProperty('audit_entries_removed');
  // Nothing removed from the journal, one entry added: the reset, with what it restored.
  const journalAfter = journalOf('demo');
  expect(journalAfter.map((e) => e.id).slice(0, journalBefore.length)).toEqual(journalBefore.map((e) => e.id));
  expect(journalAfter).toHaveLength(journalBefore.length + 1);
  const entry = journalAfter.at(-1)!;
  expect(entry).toMatchObject({
    source: 'console',
    method: 'CLI',
    path: 'tenants reset demo',
    status: 200,
    error_code: null,
    tenant_slug: 'demo',
  });
  expect(JSON.parse(entry.detail)).toMatchObject({
    action: 'tenant.reset',
    via: 'cli',
    files: false,
    rows_restored: result.rows_restored,
    journal_kept: true,
  });
  expect(result.duration_ms).toBeLessThan(1000);
  expect(await clinicLists(stack, demo, watched)).toEqual(before);

  const again = await stack.call(
    { method: 'POST', path: '/v1/pacientes', body: NEW_PATIENT, idempotencyKey: written.patientKey },
    demo,
  );
  expect(again.status).toBe(201);
  expect(again.headers['idempotency-replay']).toBe('false');
  expect(again.body.data.id).toBe(written.patientId);
});

test('without --yes and without a terminal it refuses and changes nothing', async () => {
  const { stack, demo } = first;
  const before = await clinicLists(stack, demo, []);
  const res = await cli('tenants', 'reset', 'demo');
  expect(res.code).not.toBe(0);
  expect(res.stderr).toMatch(/--yes/);
  expect(res.stdout).toBe('');
  expect(await clinicLists(stack, demo, [])).toEqual(before);
});

test('--audit is refused with the reason before anything runs (no reset, so no entry); --files is reported and the output says the journal is kept', async () => {
  const journalBefore = journalOf('sandbox').length;
  const refused = await cli('tenants', 'reset', 'sandbox', '--yes', '--audit');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/--audit is gone: a reset never deletes journal entries/);
  expect(journalOf('sandbox')).toHaveLength(journalBefore);

  const res = await cli('tenants', 'reset', 'sandbox', '--yes', '--files');
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toMatch(/tenant "sandbox" reset to its first-start state in [\d.]+ ms/);
  expect(res.stderr).toMatch(/files: 0 object/);
  expect(res.stderr).toMatch(/journal: kept; this reset is recorded in it as tenant\.reset/);
  expect(journalOf('sandbox').at(-1)).toMatchObject({
    method: 'CLI',
    path: 'tenants reset sandbox --files',
    status: 200,
  });
});

test('an unknown clinic is an error with a clear message, journaled as a 404', async () => {
  const res = await cli('tenants', 'reset', 'nao-existe', '--yes');
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/tenant "nao-existe" does not exist/);
  const entry = journalRows(first.stack).at(-1)!;
  expect(entry).toMatchObject({
    method: 'CLI',
    path: 'tenants reset nao-existe',
    status: 404,
    error_code: 'RES_NOT_FOUND',
    tenant_slug: null,
  });
});
