import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 21 § 3: docs/api/clients.md's Python (standard library) and PHP (php-cli, no extension) programs, written out
 * of the guide unchanged and run against a stack: each signs a write with a non-ASCII body and a list with a
 * percent-encoded query, and both succeed. CI installs php-cli (.ci/run); the PHP test fails, not skips, without it.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const GUIDE = readFileSync(path.join(root, 'docs/api/clients.md'), 'utf8');
const FENCES = [...GUIDE.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], body: m[2] }));
const program = (lang: string, firstLines: RegExp) => {
  const found = FENCES.find((f) => f.lang === lang && firstLines.test(f.body));
  if (!found) throw new Error(`docs/api/clients.md has no ${lang} program matching ${firstLines}`);
  return found.body;
};
const run = promisify(execFile);

let stack: TestStack;
let workDir: string;

beforeAll(async () => {
  stack = await startTestStack();
  workDir = mkdtempSync(path.join(tmpdir(), 'docs-clients-signing-'));
  writeFileSync(path.join(workDir, 'clinic_call.py'), program('python', /^# clinic_call\.py/));
  writeFileSync(path.join(workDir, 'clinic_call.php'), program('php', /^<\?php\n\/\/ clinic_call\.php/));
});

afterAll(async () => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await stack?.stop();
});

/** Runs the guide's program with the stack's URL and key in the environment, as the guide says. */
async function runProgram(interpreter: string, file: string): Promise<string[]> {
  const env = {
    ...process.env,
    API_URL: stack.gatewayUrl,
    API_KEY: stack.creds.apiKey,
    API_SECRET: stack.creds.apiSecret,
  };
  // Asynchronous: the gateway answering the program runs in this process.
  const { stdout, stderr } = await run(interpreter, [file], { cwd: workDir, env, encoding: 'utf8' });
  expect(stderr).toBe('');
  return stdout.trim().split('\n');
}

/** The created patient, read back with the test's own signed client: the program's write really happened. */
async function expectPatient(createdLine: string, nome: string): Promise<void> {
  const id = Number(/^created 201 (\d+)$/.exec(createdLine)?.[1]);
  expect(createdLine).toBe(`created 201 ${id}`);
  const read = await stack.call({ path: `/v1/pacientes/${id}` });
  expect(read.status).toBe(200);
  expect(read.body.data.nome).toBe(nome);
}

test('the Python program (standard library) signs a write and a list as written: 201, then 200 with the patient', async () => {
  const python = execFileSync('python3', ['--version'], { encoding: 'utf8' });
  expect(python).toMatch(/^Python 3\./);
  const [created, listed] = await runProgram('python3', 'clinic_call.py');
  await expectPatient(created, 'JOÃO DA CONCEIÇÃO');
  expect(listed).toMatch(/^listed 200 \[.*"JOÃO DA CONCEIÇÃO".*\]$/);
}, 60_000);

test('the PHP program (php-cli, no extension) signs a write and a list as written: 201, then 200 with the patient', async () => {
  const php = execFileSync('php', ['--version'], { encoding: 'utf8' });
  expect(php).toMatch(/^PHP 8\./);
  const [created, listed] = await runProgram('php', 'clinic_call.php');
  await expectPatient(created, 'ANA DA CONCEIÇÃO');
  expect(listed).toMatch(/^listed 200 \[.*"ANA DA CONCEIÇÃO".*\]$/);
}, 60_000);

test('a wrong secret in the same programs is refused (401 AUTH_INVALID_SIGNATURE): the 2xx above come from their signatures', async () => {
  const env = { ...process.env, API_URL: stack.gatewayUrl, API_KEY: stack.creds.apiKey, API_SECRET: 'f'.repeat(64) };
  for (const [interpreter, file] of [
    ['python3', 'clinic_call.py'],
    ['php', 'clinic_call.php'],
  ]) {
    const { stdout } = await run(interpreter, [file], { cwd: workDir, env, encoding: 'utf8' });
    expect(stdout.split('\n')[0], file).toMatch(/^created 401 .*AUTH_INVALID_SIGNATURE/);
  }
}, 60_000);
