import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 23 § 4: the boundary lint (.dependency-cruiser.cjs, `npm run lint:boundaries` in .ci/run). A fixture tree
 * with the project's folders holds one import across each wall and the arrows that are allowed: the lint, run
 * with the project's own configuration and command, reports exactly the forbidden ones and fails.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const lintScript = (): string =>
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts['lint:boundaries'];
/** The folders `npm run lint:boundaries` walks: its arguments after the options (each option takes a value). */
const lintedFolders = (): string[] =>
  lintScript()
    .split(/\s+/)
    .slice(1)
    .filter((word, i, words) => !word.startsWith('--') && !words[i - 1]?.startsWith('--'));

/** file → its imports (the forbidden ones are named in EXPECTED). */
const FIXTURE: Record<string, string[]> = {
  'contracts/ok.ts': ["'zod'"],
  'contracts/node.ts': ["'node:crypto'"],
  'contracts/up.ts': ["'../server/errors.ts'"],
  'shared-node/s3-client.ts': ["'../contracts/ok.ts'", "'node:fs'", "'../server/errors.ts'"],
  'server/errors.ts': ["'../contracts/ok.ts'", "'../shared-node/scrypt.ts'", "'node:fs'"],
  'shared-node/scrypt.ts': ["'node:crypto'"],
  'server/app.ts': [
    "'../backend-sim/main.ts'",
    "'../seed/seed.ts'",
    "'../appliance/main.ts'",
    "'../console/src/lib/api.ts'",
    "'./admin/plugin.ts'",
  ],
  // server/'s inner floors (ground → db → stores → http → adapters → app): each upward import is one no
  // downward chain leads back to, so that it is reported as the floor it crosses and not as a circle.
  'server/http/envelope.ts': ["'../errors.ts'", "'../db/database.ts'"],
  'server/db/database.ts': ["'../errors.ts'"],
  'server/keys/store.ts': ["'../db/database.ts'", "'../http/plugin.ts'"],
  'server/audit/writer.ts': ["'../keys/store.ts'", "'./audit-plugin.ts'"],
  'server/audit/audit-plugin.ts': ["'../keys/store.ts'", "'../http/plugin.ts'"],
  'server/http/plugin.ts': ["'./envelope.ts'", "'../routes/v1.ts'"],
  'server/routes/v1.ts': ["'../http/envelope.ts'", "'../app.ts'"],
  'server/admin/plugin.ts': ["'./routes.ts'"],
  'server/admin/routes.ts': ["'./plugin.ts'"],
  'server/newfolder/thing.ts': ["'../errors.ts'"],
  'backend-sim/main.ts': ["'../contracts/ok.ts'", "'../shared-node/s3-client.ts'"],
  'backend-sim/storage.ts': ["'../server/errors.ts'", "'../appliance/stack.ts'"],
  'console/src/lib/api.ts': ["'../../../contracts/ok.ts'"],
  'console/src/lib/fs.ts': ["'node:fs'"],
  'console/src/features/keys/api.ts': ["'../../../../server/errors.ts'", "'../../lib/api.ts'"],
  'console/src/features/keys/page.tsx': ["'./api.ts'", "'../audit/api.ts'"],
  'console/src/features/audit/api.ts': ["'../../../../shared-node/s3-client.ts'"],
  'appliance/main.ts': ["'./stack.ts'", "'../seed/seed.ts'", "'node:fs'"],
  'appliance/stack.ts': [
    "'../server/errors.ts'",
    "'../backend-sim/main.ts'",
    "'../shared-node/s3-client.ts'",
    "'../console/src/lib/api.ts'",
  ],
  'seed/seed.ts': ["'../backend-sim/main.ts'", "'../server/errors.ts'", "'../appliance/stack.ts'"],
  'bench/run.ts': ["'../appliance/stack.ts'", "'../seed/seed.ts'", "'../test/helper.ts'"],
  'e2e/global-setup.ts': ["'../appliance/stack.ts'", "'../server/errors.ts'"],
  'test/helper.ts': ["'../server/errors.ts'"],
};

const EXPECTED = [
  'contracts-imports-only-itself: contracts/up.ts → server/errors.ts',
  'contracts-no-node: contracts/node.ts → crypto',
  'shared-node-imports-only-contracts: shared-node/s3-client.ts → server/errors.ts',
  'server-imports-only-contracts-shared-node: server/app.ts → backend-sim/main.ts',
  'server-imports-only-contracts-shared-node: server/app.ts → seed/seed.ts',
  'server-imports-only-contracts-shared-node: server/app.ts → appliance/main.ts',
  'server-imports-only-contracts-shared-node: server/app.ts → console/src/lib/api.ts',
  'server-ground-not-up: server/http/envelope.ts → server/db/database.ts',
  'server-stores-not-up: server/keys/store.ts → server/http/plugin.ts',
  'server-stores-not-up: server/audit/writer.ts → server/audit/audit-plugin.ts',
  'server-http-not-up: server/http/plugin.ts → server/routes/v1.ts',
  'server-adapters-not-up: server/routes/v1.ts → server/app.ts',
  'server-file-on-a-floor: server/newfolder/thing.ts → server/errors.ts',
  // A circle is reported by its first step.
  'no-circular: server/admin/plugin.ts → server/admin/routes.ts',
  'backend-sim-imports-only-contracts-shared-node: backend-sim/storage.ts → server/errors.ts',
  'backend-sim-imports-only-contracts-shared-node: backend-sim/storage.ts → appliance/stack.ts',
  'console-no-node: console/src/lib/fs.ts → fs',
  'console-imports-only-contracts: console/src/features/keys/api.ts → server/errors.ts',
  'console-imports-only-contracts: console/src/features/audit/api.ts → shared-node/s3-client.ts',
  'console-features-apart: console/src/features/keys/page.tsx → console/src/features/audit/api.ts',
  'appliance-imports-only-contracts-shared-node-server-backend-sim-seed: appliance/stack.ts → console/src/lib/api.ts',
  'seed-imports-only-contracts-shared-node-server-backend-sim: seed/seed.ts → appliance/stack.ts',
  'bench-imports-only-contracts-shared-node-server-backend-sim-appliance-seed: bench/run.ts → test/helper.ts',
];

/** Runs `npm run lint:boundaries`'s own command in `cwd`; the violations as `rule: from → to`. */
function lint(cwd: string): Promise<{ code: number; violations: string[]; out: string }> {
  const [, ...args] = lintScript().split(/\s+/);
  return new Promise((resolve) => {
    execFile(DEPCRUISE, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const out = `${stdout}${stderr}`;
      // A circle's path goes on over the next lines (`a.ts → ` then `b.ts →`, …): its first step is kept.
      const violations = [...out.matchAll(/^\s*error (\S+): (\S+) → ?\n?\s*(\S+?) ?(?:→|$)/gm)].map(
        ([, rule, from, to]) => `${rule}: ${from} → ${to}`,
      );
      resolve({ code: error ? Number(error.code ?? 1) : 0, violations, out });
    });
  });
}

let fixture: string;
beforeAll(() => {
  fixture = mkdtempSync(path.join(tmpdir(), 'gw-boundaries-'));
  copyFileSync(CONFIG, path.join(fixture, path.basename(CONFIG)));
  for (const [file, imports] of Object.entries(FIXTURE)) {
    mkdirSync(path.dirname(path.join(fixture, file)), { recursive: true });
    writeFileSync(
      path.join(fixture, file),
      `${imports.map((what, i) => `import * as m${i} from ${what};`).join('\n')}\nexport const used = 1;\n`,
    );
  }
  // zod for contracts/ok.ts: a package, allowed everywhere.
  mkdirSync(path.join(fixture, 'node_modules', 'zod'), { recursive: true });
  writeFileSync(path.join(fixture, 'node_modules', 'zod', 'package.json'), '{"name":"zod","main":"index.js"}');
  writeFileSync(path.join(fixture, 'node_modules', 'zod', 'index.js'), 'export const z = 1;\n');
});
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

describe('the boundary lint', () => {
  it('fails on an import across each wall, names the rule, and lets the allowed arrows through', async () => {
    const { code, violations, out } = await lint(fixture);
    expect(violations.sort(), out).toEqual([...EXPECTED].sort());
    expect(out).toContain(`x ${EXPECTED.length} dependency violations`);
    expect(code).not.toBe(0);
  }, 60_000);

  it('walks every top-level folder of code but test/ (a new floor cannot be left out of it)', () => {
    const skip = new Set(['node_modules', 'test', 'docs', 'spec']);
    const withCode = readdirSync(ROOT, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !skip.has(e.name))
      .filter((e) =>
        readdirSync(path.join(ROOT, e.name), { recursive: true, encoding: 'utf8' }).some(
          (f) => /\.(ts|tsx|mjs|cjs)$/.test(f) && !/(^|\/)(node_modules|dist)\//.test(f),
        ),
      )
      .map((e) => e.name);
    expect(lintedFolders().sort()).toEqual(withCode.sort());
  });
});
