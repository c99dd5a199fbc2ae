import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { clinicLists, NEW_PATIENT, startFirstStartStack, writeOnDemo, type FirstStartStack } from '../../helpers/first-start.ts';

// Issue 13 § Reset a tenant, the CLI path: `npm run cli -- tenants reset SLUG [--audit] [--files] [--yes]`
// against a running stack whose default tenants came from the real first start.
vi.setConfig({ testTimeout: 120_000 });
let first: FirstStartStack;
beforeAll(async () => {
  first = await startFirstStartStack();
}, 180_000);
afterAll(async () => first?.stop());

const TSX = path.resolve('node_modules/.bin/tsx');

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DATA_DIR: first.dataDir, BACKEND_URL: first.stack.backendUrl };
    execFile(TSX, ['server/cli/main.ts', ...args], { env }, (error, stdout, stderr) => {
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

  const res = await cli('tenants', 'reset', 'demo', '--yes', '--json');
  expect(res.code, res.stderr).toBe(0);
  const result = JSON.parse(res.stdout);
  expect(result).toMatchObject({ slug: 'demo', nome: 'Clinica Demo', idempotency_keys_removed: 4, idempotency_markers_removed: 4, audit_entries_removed: null, files_removed: null });
  expect(result.duration_ms).toBeLessThan(1000);
  expect(await clinicLists(stack, demo, watched)).toEqual(before);

  const again = await stack.call({ method: 'POST', path: '/v1/pacientes', body: NEW_PATIENT, idempotencyKey: written.patientKey }, demo);
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

test('--audit and --files are reported; the human output names what was removed', async () => {
  const res = await cli('tenants', 'reset', 'sandbox', '--yes', '--audit', '--files');
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toMatch(/tenant "sandbox" reset to its first-start state in [\d.]+ ms/);
  expect(res.stderr).toMatch(/audit: \d+ entr/);
  expect(res.stderr).toMatch(/files: 0 object/);
});

test('an unknown clinic is an error with a clear message', async () => {
  const res = await cli('tenants', 'reset', 'nao-existe', '--yes');
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/tenant "nao-existe" does not exist/);
});
