// The Node.js versions the appliance runs on: those every package in package-lock.json accepts (its
// `engines.node`), stated in package.json's `engines` and checked by appliance/start.mjs before anything loads, so
// an unsupported Node gets one line saying what to install instead of a crash somewhere in a dependency.
// Plain JavaScript: the launcher imports it before any TypeScript can be compiled.
//
// Where the bounds come from (the lockfile's engines, checked by test/appliance/node-engine.test.ts):
//   vite 7, @vitejs/plugin-react 5   ^20.19.0 || >=22.12.0
//   watskeburt (dependency-cruiser)  ^20.12 || ^22.13 || >=24.0     → no 21, no 22.0–22.12, no 23
//   glob, minimatch, lru-cache…      20 || >=22
//   better-sqlite3 12                20.x || 22.x || 23.x || 24.x || 25.x || 26.x   → nothing past 26
// The optional @napi-rs/lzma binary rollup lists (^22.20 || ^24.12 || >=25) is skipped by npm where it does not fit.

/** package.json's `engines.node`, word for word. */
export const SUPPORTED_NODE = '^20.19.0 || ^22.13.0 || >=24.0.0 <27';

/** The exit code of a start on an unsupported Node.js (as for a configuration error: nothing was started). */
export const UNSUPPORTED_NODE_EXIT_CODE = 2;

/** Each supported release line: its major version and the first minor version of it that fits. */
const LINES = [
  { major: 20, minor: 19 },
  { major: 22, minor: 13 },
  { major: 24, minor: 0 },
  { major: 25, minor: 0 },
  { major: 26, minor: 0 },
];

/**
 * Why this Node.js version cannot run the appliance, or null when it can.
 * @param {string} version `process.versions.node` (e.g. `22.12.0`)
 * @returns {string | null}
 */
export function unsupportedNodeReason(version) {
  const [major, minor] = version.split('.').map(Number);
  const line = LINES.find((l) => l.major === major);
  if (line && minor >= line.minor) return null;
  return (
    `Node.js ${version} cannot run the appliance: its dependencies need Node.js 20.19 or a later 20.x, 22.13 or a later 22.x, ` +
    `or 24, 25 or 26 (package.json "engines": "${SUPPORTED_NODE}"). Install one of those (an LTS line: 22 or 24), ` +
    'then run `npm ci` again (better-sqlite3 is built for the Node.js that installs it).'
  );
}
