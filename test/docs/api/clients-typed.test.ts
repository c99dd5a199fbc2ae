import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 21 § 3, "a typed client, proven": docs/api/clients.md's TypeScript section done exactly as written, in a
 * folder of its own. Its generator command runs (openapi-typescript, against the live /openapi.json of a stack), its
 * sign.ts, main.ts and tsconfig.json are written out of the guide, its type-check command passes (strict), its
 * program runs signed against the stack, and the two mistakes the guide shows fail to compile with the errors it shows.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const GUIDE = readFileSync(path.join(root, 'docs/api/clients.md'), 'utf8');
const run = promisify(execFile);

/** The guide's fenced blocks, opening and closing fences paired in order. */
const FENCES = [...GUIDE.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], body: m[2] }));
/** The guide's fenced blocks of a language (`''`: no language), in order. */
const blocks = (lang: string) => FENCES.filter((f) => f.lang === lang).map((f) => f.body);
/** The block whose first line names the file (`// sign.ts: …`). */
const file = (lang: string, name: string) => {
  const found = blocks(lang).find((b) => b.split('\n')[0].startsWith(`// ${name}`));
  if (!found) throw new Error(`docs/api/clients.md has no ${lang} block starting with // ${name}`);
  return found;
};
/** A guide command line `npx <tool> args…`, run with the repository's own copy of the tool (never a download). */
const npx = (line: string, cwd: string, env: Record<string, string> = {}) => {
  const [npxWord, tool, ...args] = line.trim().split(/\s+/);
  expect(npxWord).toBe('npx');
  return run(path.join(root, 'node_modules/.bin', tool), args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
};
/** The first command line of the guide's bash blocks that starts with `prefix`. */
const command = (prefix: string) => {
  const line = blocks('bash')
    .flatMap((b) => b.split('\n'))
    .find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`docs/api/clients.md shows no command starting with ${prefix}`);
  return line;
};
const tsconfig = blocks('json').find((b) => b.includes('"compilerOptions"'))!;

let stack: TestStack;
let workDir: string;
let project: string;

/** A copy of the project folder (types, middleware, config) with main.ts changed by `edit`. */
function variant(name: string, edit: (source: string) => string): string {
  const dir = path.join(workDir, name);
  mkdirSync(dir);
  for (const f of ['schema.d.ts', 'sign.ts', 'tsconfig.json']) copyFileSync(path.join(project, f), path.join(dir, f));
  const source = file('ts', 'main.ts');
  const edited = edit(source);
  expect(edited, `${name}: the edit changes main.ts`).not.toBe(source);
  writeFileSync(path.join(dir, 'main.ts'), edited);
  return dir;
}

async function typeCheck(cwd: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await npx(command('npx tsc '), cwd);
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

beforeAll(async () => {
  stack = await startTestStack();
  workDir = mkdtempSync(path.join(tmpdir(), 'docs-clients-'));
  // The folder an integrator would have after `npm install`: the packages the guide installs, from this repository.
  symlinkSync(path.join(root, 'node_modules'), path.join(workDir, 'node_modules'), 'dir');
  writeFileSync(path.join(workDir, 'package.json'), '{ "type": "module", "private": true }\n');
  project = path.join(workDir, 'client');
  mkdirSync(project);
  writeFileSync(path.join(project, 'sign.ts'), file('ts', 'sign.ts'));
  writeFileSync(path.join(project, 'main.ts'), file('ts', 'main.ts'));
  writeFileSync(path.join(project, 'tsconfig.json'), tsconfig);
  // The guide's generator command, pointed at this stack instead of localhost:8080.
  const generate = command('npx openapi-typescript ');
  expect(generate).toMatch(/^npx openapi-typescript http:\/\/localhost:8080\/openapi\.json -o schema\.d\.ts$/);
  await npx(generate.replace('http://localhost:8080', stack.gatewayUrl), project);
}, 120_000);

afterAll(async () => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await stack?.stop();
});

test('openapi-typescript generates the types from the live /openapi.json: named components, closed bodies, integer ids', () => {
  const types = readFileSync(path.join(project, 'schema.d.ts'), 'utf8');
  expect(types).toMatch(/\n {8}PacienteCreate: \{/);
  expect(types).toMatch(/\n {8}ErrorEnvelope: \{/);
  expect(types).toMatch(/"\/v1\/pacientes\/\{id\}": \{/);
  // An open body would read `[key: string]: unknown`; none is left.
  expect(types).not.toContain('[key: string]: unknown');
});

test("the guide's program type-checks with its tsconfig (strict) and its type-check command", async () => {
  expect(JSON.parse(tsconfig).compilerOptions.strict).toBe(true);
  const { code, out } = await typeCheck(project);
  expect(out).toBe('');
  expect(code).toBe(0);
}, 60_000);

test('the two mistakes the guide shows fail to compile, with the errors it shows', async () => {
  const shown = blocks('')
    .find((b) => b.includes('error TS2561'))!
    .trim()
    .split('\n');
  expect(shown).toHaveLength(2);
  const cases = [
    { dir: variant('typo-field', (s) => s.replace('data_nascimento:', 'data_nasciment:')), error: shown[0] },
    { dir: variant('limit-string', (s) => s.replace('limit: 5', "limit: '5'")), error: shown[1] },
  ];
  for (const { dir, error } of cases) {
    const { code, out } = await typeCheck(dir);
    expect(code, out).not.toBe(0);
    // The guide abbreviates the long type with `...`: every part around it is in the compiler's message.
    for (const part of error.split('...').map((p) => p.trim()))
      expect(out).toContain(part.replace(/[{}]$|^[{}]/g, '').trim());
    expect(out.trim().split('\n'), 'exactly one error').toHaveLength(1);
  }
}, 60_000);

test('the program runs as written, signed by the middleware: the patient is created (201) and found (200)', async () => {
  const { stdout } = await npx(command('npx tsx '), project, {
    API_URL: stack.gatewayUrl,
    API_KEY: stack.creds.apiKey,
    API_SECRET: stack.creds.apiSecret,
  });
  const [created, listed] = stdout.trim().split('\n');
  const id = Number(/^created 201 (\d+) \/v1\/pacientes\/(\d+)$/.exec(created)?.[1]);
  expect(created).toBe(`created 201 ${id} /v1/pacientes/${id}`);
  expect(listed).toBe('listed 200 ["MARIA DA CONCEIÇÃO"]');
  // The guide's sample output is this run's, with its own id.
  expect(GUIDE).toContain(`created 201 17 /v1/pacientes/17\n${listed}\n`);
}, 60_000);
