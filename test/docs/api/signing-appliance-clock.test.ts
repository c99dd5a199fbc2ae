import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { nowSeconds } from '../../helpers/signed-client.ts';
import { hasCommands } from '../../helpers/tools.ts';

/**
 * Issue 21 § 4, "the guides' helpers sign with the appliance's time when asked": docs/api/README-signing.md's
 * `call` and `sync_clock` (bash, curl, openssl) and its Node `applianceOffsetSeconds`, run as written against a
 * stack whose appliance clock is moved 25 h ahead. Only the credential lines (API=, KEY=, SECRET=) are replaced.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const GUIDE = path.join(root, 'docs/api/README-signing.md');
const hasTools = hasCommands('bash', 'curl', 'openssl');
const OFFSET_S = 25 * 3600;

let stack: TestStack;
let workDir: string;

const blocks = (lang: string) =>
  [...readFileSync(GUIDE, 'utf8').matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
/** The guide's helpers: the bash blocks defining `call` and `sync_clock`, the credential lines left out. */
const helpers = () =>
  blocks('bash')
    .filter((b) => /^call\(\) \{|^sync_clock\(\) \{/m.test(b))
    .join('\n')
    .split('\n')
    .filter((line) => !/^(API|KEY|SECRET)=/.test(line))
    .join('\n');

async function bash(commands: string): Promise<{ stdout: string; stderr: string }> {
  const file = path.join(workDir, `run-${Date.now()}.sh`);
  const { apiKey, apiSecret } = stack.creds;
  writeFileSync(file, `API=${stack.gatewayUrl}\nKEY=${apiKey}\nSECRET=${apiSecret}\n${helpers()}\n${commands}\n`);
  // Asynchronous: the gateway answering curl runs in this process.
  return promisify(execFile)('bash', [file], { cwd: workDir, encoding: 'utf8' });
}

/** Status and JSON body of each `call` (curl -i), one per line of output ended by the `echo` after it. */
const answers = (out: string) =>
  [...out.matchAll(/HTTP\/1\.1 (\d{3})[^\n]*\n[\s\S]*?\r\n\r\n(.*)\n/g)].map((m) => ({
    status: Number(m[1]),
    body: JSON.parse(m[2]),
  }));

beforeAll(async () => {
  stack = await startTestStack();
  workDir = mkdtempSync(path.join(tmpdir(), 'docs-signing-'));
});

afterAll(async () => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await stack?.stop();
});

test.skipIf(!hasTools)(
  'at real time: sync_clock finds nothing to correct (TS_OFFSET=0) and call signs with the own clock',
  async () => {
    const { stdout, stderr } = await bash('sync_clock\ncall GET /v1/ping; echo');
    expect(stderr).toBe('TS_OFFSET=0\n');
    expect(answers(stdout).map((a) => a.status)).toEqual([200]);
  },
);

test.skipIf(!hasTools)(
  'after clock advance 25h: call on the own clock is refused naming the offset; after sync_clock it signs with the appliance time',
  async () => {
    await stack.clock.advance(OFFSET_S * 1000);
    try {
      const { stdout, stderr } = await bash(
        [
          'call GET /v1/ping; echo',
          'sync_clock',
          'call GET /v1/ping; echo',
          "call GET '/v1/pacientes?limit=1'; echo",
          'TS_OFFSET=0',
          'call GET /v1/ping; echo',
        ].join('\n'),
      );
      const got = answers(stdout);
      expect(got.map((a) => [a.status, a.body.error?.code ?? null])).toEqual([
        [401, 'AUTH_TIMESTAMP_EXPIRED'],
        [200, null],
        [200, null],
        [401, 'AUTH_TIMESTAMP_EXPIRED'],
      ]);
      expect(got[0].body.error.details.appliance_offset_seconds).toBe(OFFSET_S);
      expect(got[0].body.error.message).toMatch(/adiantado de proposito em 1d 1h .* segue o tempo real/);
      const offset = Number(/^TS_OFFSET=(\d+)$/m.exec(stderr)?.[1]);
      expect(Math.abs(offset - OFFSET_S)).toBeLessThanOrEqual(2);
    } finally {
      await stack.clock.reset();
    }
  },
);

test('the Node helper of the guide gives the offset to add, and a timestamp with it passes', async () => {
  const [helper] = blocks('js').filter((b) => b.includes('export async function applianceOffsetSeconds'));
  expect(helper).toBeDefined();
  writeFileSync(path.join(workDir, 'appliance-time.mjs'), helper);
  const offsetOf = async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        'const m = await import("./appliance-time.mjs"); console.log(await m.applianceOffsetSeconds(...process.argv.slice(1)));',
        stack.gatewayUrl,
        stack.creds.apiKey,
        stack.creds.apiSecret,
      ],
      { cwd: workDir, encoding: 'utf8' },
    );
    return Number(stdout.trim());
  };
  expect(await offsetOf()).toBe(0);
  await stack.clock.advance(OFFSET_S * 1000);
  try {
    const offset = await offsetOf();
    expect(Math.abs(offset - OFFSET_S)).toBeLessThanOrEqual(2);
    expect((await stack.call({ path: '/v1/ping', timestamp: nowSeconds() + offset })).status).toBe(200);
  } finally {
    await stack.clock.reset();
  }
});
