// `npm start`: runs server/main.ts from a bundle that esbuild builds once and reuses while none of
// its sources changed. Loading ~600 ES modules through tsx's loader hooks cost about a second on
// every start; one plain-JS file with the packages left to Node's own loader costs a fraction.
// Plain JavaScript on purpose: this file runs before anything can compile TypeScript.
//
// START_CACHE_DIR moves the cache (default .cache/start); START_ENTRY bundles another entry
// (default server/main.ts). Both are for tests, which must not share a developer's cache.
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bumped when the build options change, so an older cache is never reused by accident. */
const LAUNCHER_VERSION = 1;
const LAUNCHER = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(LAUNCHER), '..');
const ENTRY = path.resolve(ROOT, process.env.START_ENTRY || 'server/main.ts');
const CACHE_DIR = path.resolve(ROOT, process.env.START_CACHE_DIR || '.cache/start');
const BUNDLE = path.join(CACHE_DIR, 'main.mjs');
const MANIFEST = path.join(CACHE_DIR, 'manifest.json');

const rel = (file) => path.relative(ROOT, file) || '.';
const fileStamp = (file) => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? [stat.size, stat.mtimeMs] : null;
};
const sameStamp = (a, b) => Array.isArray(a) && Array.isArray(b) && a[0] === b[0] && a[1] === b[1];

function esbuildVersion() {
  const require = createRequire(LAUNCHER);
  return JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')).version;
}

/** What a bundle depends on besides its inputs: when any of this differs, it is rebuilt. */
function buildKey() {
  return { launcher: LAUNCHER_VERSION, launcherFile: fileStamp(LAUNCHER), esbuild: esbuildVersion(), root: ROOT, entry: ENTRY, tsconfig: fileStamp(path.join(ROOT, 'tsconfig.json')) };
}

/** Why the cached bundle cannot be used, or null when it can. Only stats files: no esbuild here. */
function staleReason(key) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return 'no cached bundle';
  }
  if (!sameStamp(manifest.bundle, fileStamp(BUNDLE))) return 'no cached bundle';
  for (const [name, value] of Object.entries(key)) {
    if (JSON.stringify(manifest.key?.[name]) !== JSON.stringify(value)) return name === 'launcherFile' ? `${rel(LAUNCHER)} changed` : `${name} changed`;
  }
  for (const [file, stamp] of Object.entries(manifest.inputs ?? {})) {
    if (!sameStamp(stamp, fileStamp(file))) return `${rel(file)} changed`;
  }
  return null;
}

/**
 * Each source's `import.meta.url` becomes that source's own file URL, so paths it resolves from
 * there (../package.json, ../console/dist, ./audit-worker.mjs, createRequire) are the same as
 * when it runs unbundled, wherever the cache lives. Each file is stamped before it is read: one
 * edited during the build makes the next start build again.
 */
const sourceUrls = (stamps) => ({
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async ({ path: file }) => {
      stamps.set(file, fileStamp(file));
      const text = await readFile(file, 'utf8');
      const loader = /\.[cm]?tsx?$/.test(file) ? (file.endsWith('x') ? 'tsx' : 'ts') : file.endsWith('x') ? 'jsx' : 'js';
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href)), loader };
    });
  },
});

async function build(key) {
  const esbuild = await import('esbuild');
  const stamps = new Map();
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [ENTRY],
      outfile: BUNDLE,
      write: false,
      bundle: true,
      // Packages stay in node_modules, loaded by Node itself (better-sqlite3 is native anyway).
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      keepNames: true,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [sourceUrls(stamps)],
    });
  } catch (error) {
    const messages = error?.errors?.length ? await esbuild.formatMessages(error.errors, { kind: 'error', color: false }) : [String(error?.message ?? error)];
    console.error(`Startup failed: ${rel(ENTRY)} does not build (${messages.length} error${messages.length === 1 ? '' : 's'}):\n\n${messages.join('\n').trimEnd()}`);
    process.exit(1);
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  // Packages resolve from node_modules above the bundle; a cache outside the checkout gets a link.
  if (rel(CACHE_DIR).startsWith('..') && !lstatSync(path.join(CACHE_DIR, 'node_modules'), { throwIfNoEntry: false })) {
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(CACHE_DIR, 'node_modules'), 'junction');
  }
  // Written aside and renamed: a start running at the same time sees the old files or the new ones.
  const tmp = `.${process.pid}.tmp`;
  const outputs = result.outputFiles;
  for (const output of [...outputs.filter((o) => o.path !== BUNDLE), ...outputs.filter((o) => o.path === BUNDLE)]) {
    writeFileSync(output.path + tmp, output.contents);
    renameSync(output.path + tmp, output.path);
  }
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(ROOT, input);
    inputs[file] = stamps.get(file) ?? fileStamp(file);
  }
  writeFileSync(MANIFEST + tmp, `${JSON.stringify({ key, bundle: fileStamp(BUNDLE), inputs }, null, 1)}\n`);
  renameSync(MANIFEST + tmp, MANIFEST);
  return Object.keys(inputs).length;
}

const started = performance.now();
const key = buildKey();
const reason = staleReason(key);
if (reason) {
  const files = await build(key);
  console.log(`server bundle rebuilt: ${reason} (${files} files, ${Math.round(performance.now() - started)} ms, ${rel(BUNDLE)})`);
} else {
  console.log(`server bundle is up to date (${Math.round(performance.now() - started)} ms, ${rel(BUNDLE)})`);
}
// Stack traces name the TypeScript sources, as they did under tsx.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(BUNDLE).href);
