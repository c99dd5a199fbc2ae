import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, UNSUPPORTED_NODE_EXIT_CODE, unsupportedNodeReason } from '../../appliance/node-engine.mjs';

/**
 * Issue 21 § 6: the Node.js engine the dependencies need is stated (package.json `engines`, README) and checked at
 * start (appliance/start.mjs; its wiring is proven in start.test.ts). The range must be exactly the versions every
 * installed package accepts: not wider (a Node a dependency refuses would start and fail later), not narrower.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
// npm's own range semantics, from the copy npm installed for the dependencies that use it (no types shipped).
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };

type LockEntry = { engines?: { node?: string }; optional?: boolean };
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
/** `engines.node` of every package npm installs whatever the Node (optional ones are skipped where they do not fit). */
const required = Object.entries(lock.packages)
  .filter(([name, entry]) => name !== '' && !entry.optional && entry.engines?.node)
  .map(([name, entry]) => ({ name: name.replace(/^.*node_modules\//, ''), range: entry.engines!.node! }));

/** Versions across every release line from 18 to 28, each line's early, middle and late minors. */
const VERSIONS = Array.from({ length: 11 }, (_, i) => 18 + i).flatMap((major) =>
  Array.from({ length: 31 }, (_, minor) => [`${major}.${minor}.0`, `${major}.${minor}.9`]).flat(),
);

describe('the Node.js engine (appliance/node-engine.mjs)', () => {
  it("is package.json's engines and the lockfile's root entry, word for word, and the README states it", () => {
    expect(readJson('package.json').engines).toEqual({ node: SUPPORTED_NODE });
    expect(lock.packages[''].engines).toEqual({ node: SUPPORTED_NODE });
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`\`${SUPPORTED_NODE}\``);
  });

  it('accepts exactly the versions every installed package accepts (20.19+, 22.13+, 24–26: no 21, 22.0–22.12, 23 or 27)', () => {
    // The lockfile does declare the narrow bounds (a change of dependencies that moves them fails here).
    expect(required.length).toBeGreaterThan(50);
    const disagreements = VERSIONS.flatMap((version) => {
      const refusedBy = required
        .filter((p) => !semver.satisfies(version, p.range))
        .map((p) => `${p.name} (${p.range})`);
      const accepted = unsupportedNodeReason(version) === null;
      const agree = accepted === (refusedBy.length === 0) && accepted === semver.satisfies(version, SUPPORTED_NODE);
      return agree
        ? []
        : [`${version}: ${accepted ? 'accepted' : 'refused'}, refused by ${refusedBy.join(', ') || 'no package'}`];
    });
    expect(disagreements).toEqual([]);
    for (const version of ['20.19.0', '22.13.0', '24.0.0', '26.9.1'])
      expect(unsupportedNodeReason(version), version).toBeNull();
    for (const version of ['20.18.3', '21.7.3', '22.12.0', '23.11.1', '27.0.0', '18.20.8'])
      expect(unsupportedNodeReason(version), version).not.toBeNull();
  });

  it('the refusal names the running version, what to install, the engines range, and npm ci (the native addon follows the Node that built it)', () => {
    expect(unsupportedNodeReason('22.12.0')).toBe(
      'Node.js 22.12.0 cannot run the appliance: its dependencies need Node.js 20.19 or a later 20.x, 22.13 or a later 22.x, ' +
        `or 24, 25 or 26 (package.json "engines": "${SUPPORTED_NODE}"). Install one of those (an LTS line: 22 or 24), ` +
        'then run `npm ci` again (better-sqlite3 is built for the Node.js that installs it).',
    );
    expect(UNSUPPORTED_NODE_EXIT_CODE).toBe(2);
  });
});
