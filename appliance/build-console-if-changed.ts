import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The console is rebuilt only when what its build reads changed: the files under console/src,
 * console/index.html and console/vite.config.ts, the files outside console/ they import (the
 * shared zod schemas, contracts), tsconfig.json, and the lockfile entries of every package they
 * import, with those packages' own dependencies (the build tool chain included: vite imports
 * rollup, esbuild…). The hash of all that is written to console/dist/.build-hash after a
 * successful build; a start whose hash matches skips the build (about 5 s on the 2-core machine).
 */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_HASH_FILE = '.build-hash';
/** Bumped when what goes into the hash changes, so an old .build-hash never matches by accident. */
// v2: builds are always production ones; a v1 hash may record a development build (NODE_ENV=development).
const HASH_FORMAT = 'console-build-hash v2';
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.css'];
const BUILTINS = new Set(builtinModules);

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

const STATIC_IMPORT = /\b(?:import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s*)?['"]([^'"\n]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

/** What a file imports; `import type` / `export type` are left out: erased, they never reach the build. */
function importSpecifiers(source: string): string[] {
  const specifiers = [...source.matchAll(STATIC_IMPORT)].filter((m) => !m[1]).map((m) => m[2]);
  return [...specifiers, ...[...source.matchAll(DYNAMIC_IMPORT)].map((m) => m[1])];
}

function resolveRelative(fromFile: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [
    base,
    ...SOURCE_EXTENSIONS.map((e) => base + e),
    ...SOURCE_EXTENSIONS.map((e) => path.join(base, `index${e}`)),
  ];
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; builtins and `node:` → null. */
function packageName(specifier: string): string | null {
  if (specifier.startsWith('node:') || specifier.startsWith('virtual:') || specifier.startsWith('/')) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return BUILTINS.has(name) ? null : name;
}

interface LockEntry {
  version?: string;
  integrity?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** npm's lookup: `<here>/node_modules/<name>`, then each enclosing node_modules up to the root. */
function lockLocation(packages: Record<string, LockEntry>, from: string, name: string): string | null {
  let here = from;
  for (;;) {
    const candidate = here ? `${here}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!here) return null;
    const index = here.lastIndexOf('/node_modules/');
    here = index === -1 ? '' : here.slice(0, index);
  }
}

/** `location version integrity` of the packages and everything they depend on, per the lockfile. */
function lockClosure(root: string, names: string[]): string[] {
  const lockFile = path.join(root, 'package-lock.json');
  if (!existsSync(lockFile)) {
    // No lockfile: the installed versions of the directly imported packages are the best we know.
    return names.map((name) => {
      const manifest = path.join(root, 'node_modules', name, 'package.json');
      return `${name} ${existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'absent'}`;
    });
  }
  const packages =
    (JSON.parse(readFileSync(lockFile, 'utf8')) as { packages?: Record<string, LockEntry> }).packages ?? {};
  const seen = new Set<string>();
  const pending = names.map((name) => lockLocation(packages, '', name)).filter((l): l is string => l !== null);
  while (pending.length > 0) {
    const location = pending.pop()!;
    if (seen.has(location)) continue;
    seen.add(location);
    const entry = packages[location];
    const deps = { ...entry.peerDependencies, ...entry.optionalDependencies, ...entry.dependencies };
    for (const dep of Object.keys(deps)) {
      const found = lockLocation(packages, location, dep);
      if (found && !seen.has(found)) pending.push(found);
    }
  }
  return [...seen]
    .sort()
    .map((l) => `${l} ${packages[l].version ?? ''} ${packages[l].integrity ?? packages[l].resolved ?? ''}`);
}

/** The build's inputs as `relative path` → content hash lines, plus the lockfile lines. */
export function consoleBuildInputs(root: string = REPO_ROOT): { files: string[]; packages: string[] } {
  const consoleDir = path.join(root, 'console');
  const start = [
    ...listFiles(path.join(consoleDir, 'src')),
    ...listFiles(path.join(consoleDir, 'public')),
    path.join(consoleDir, 'index.html'),
    path.join(consoleDir, 'vite.config.ts'),
    path.join(root, 'tsconfig.json'),
  ].filter((f) => existsSync(f));
  const files = new Set<string>();
  const packages = new Set<string>(['vite']);
  const pending = [...start];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!SOURCE_EXTENSIONS.includes(path.extname(file)) && !file.endsWith('.html')) continue;
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const resolved = resolveRelative(file, specifier);
        if (resolved && !files.has(resolved)) pending.push(resolved);
      } else {
        const name = packageName(specifier);
        if (name) packages.add(name);
      }
    }
  }
  return {
    files: [...files].map((f) => path.relative(root, f).split(path.sep).join('/')).sort(),
    packages: lockClosure(root, [...packages].sort()),
  };
}

export function consoleSourceHash(root: string = REPO_ROOT): string {
  const { files, packages } = consoleBuildInputs(root);
  const hash = createHash('sha256').update(`${HASH_FORMAT}\n`);
  for (const file of files) {
    const content = readFileSync(path.join(root, file));
    hash.update(`file ${file} ${createHash('sha256').update(content).digest('hex')}\n`);
  }
  for (const line of packages) hash.update(`package ${line}\n`);
  return hash.digest('hex');
}

const distDir = (root: string) => path.join(root, 'console', 'dist');

/** The hash the last successful build recorded, or null (never built, or built by plain `vite build`). */
export function recordedBuildHash(root: string = REPO_ROOT): string | null {
  const dist = distDir(root);
  if (!existsSync(path.join(dist, 'index.html'))) return null;
  try {
    return readFileSync(path.join(dist, BUILD_HASH_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function runViteBuild(root: string): Promise<void> {
  const vite = path.join(
    path.dirname(createRequire(path.join(root, 'package.json')).resolve('vite/package.json')),
    'bin',
    'vite.js',
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--config', path.join('console', 'vite.config.ts')], {
      cwd: root,
      // Always React's production build: a NODE_ENV=development left in a shell made vite bundle the development one
      // (812 kB, its "chunks larger than 500 kB" warning), and the hash recorded after it would have kept it.
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: 'inherit',
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`console build failed (vite build exited with ${signal ?? code})`)),
    );
  });
}

export interface ConsoleBuildResult {
  built: boolean;
  hash: string;
  ms: number;
}

/**
 * Builds the console when its inputs changed since the last build (or `force`), then records
 * their hash. The hash is taken before the build: a file edited during it makes the next start
 * build again rather than trust a build that may predate the edit.
 */
export async function buildConsoleIfChanged(
  options: {
    root?: string;
    force?: boolean;
    build?: (root: string) => Promise<void>;
    log?: (line: string) => void;
  } = {},
): Promise<ConsoleBuildResult> {
  const root = options.root ?? REPO_ROOT;
  const started = performance.now();
  const hash = consoleSourceHash(root);
  if (!options.force && recordedBuildHash(root) === hash)
    return { built: false, hash, ms: performance.now() - started };
  options.log?.(options.force ? 'Building the console…' : 'Console sources changed: building the console…');
  rmSync(path.join(distDir(root), BUILD_HASH_FILE), { force: true });
  await (options.build ?? runViteBuild)(root);
  writeFileSync(path.join(distDir(root), BUILD_HASH_FILE), `${hash}\n`);
  return { built: true, hash, ms: performance.now() - started };
}

// `node --import tsx appliance/build-console-if-changed.ts [--force]` (npm run build:console, pretest:e2e).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  buildConsoleIfChanged({ force, log: (line) => console.error(line) }).then(
    (result) =>
      console.error(
        result.built
          ? `console built (${Math.round(result.ms)} ms)`
          : `console is up to date (${Math.round(result.ms)} ms, hash ${result.hash.slice(0, 12)})`,
      ),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
