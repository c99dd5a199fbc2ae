// `npm start`, `npm run cli` and `npm run cluster`: run appliance/main.ts (or the operator CLI, `--entry=cli`, or the
// cluster's supervisor and gateways, `--entry=cluster`) from one bundle that
// esbuild builds and then reuses until one of its inputs changes. Under tsx every start loaded ~600 ES modules
// through tsx's loader hooks and the packages file by file (about a second on the 2-core machine, ~3 s of CPU
// per CLI command); one plain-JS file, packages included, loads in a fraction of that. Plain JavaScript on
// purpose: nothing here needs compiling.
//
// The cache is .cache/start (START_CACHE_DIR moves it, relative to the checkout), one bundle and manifest per
// entry. START_ENTRY bundles another source than the entry's own: both are for tests, which must not use a
// developer's cache nor touch real sources.
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UNSUPPORTED_NODE_EXIT_CODE, unsupportedNodeReason } from './node-engine.mjs';
import { mapStackTraces } from './stack-trace-sources.mjs';
import { startTrace } from './start-trace.mjs';

startTrace('launcher', 'launcher loaded');

// The Node.js the dependencies need (package.json `engines`, appliance/node-engine.mjs): said plainly before anything
// loads, exit 2, instead of a crash somewhere in a dependency.
const unsupported = unsupportedNodeReason(process.versions.node);
if (unsupported) {
  console.error(unsupported);
  process.exit(UNSUPPORTED_NODE_EXIT_CODE);
}

/**
 * What the launcher can run. The CLI's stdout carries its results (`--json` included), so its launcher
 * says nothing when the bundle is up to date and writes a rebuild's line to stderr. `companions`: bundles
 * the entry starts as processes of their own (backend-sim's child process), built with it in one esbuild run
 * and checked with it (one manifest), named to the entry in `globalThis.applianceBundles`. `prestart`: the
 * launcher starts that process itself before it loads the entry (`globalThis.applianceCompanions`).
 */
const ENTRIES = {
  server: {
    source: 'appliance/main.ts',
    bundle: 'main.mjs',
    manifest: 'manifest.json',
    name: 'server bundle',
    failure: 'Startup failed',
    quiet: false,
    companions: {
      'backend-sim': { source: 'appliance/backend-sim-child.ts', bundle: 'backend-sim.mjs', prestart: true },
    },
  },
  cli: {
    source: 'appliance/cli/run.ts',
    bundle: 'cli.mjs',
    manifest: 'cli.manifest.json',
    name: 'cli bundle',
    failure: 'CLI failed',
    quiet: true,
  },
  cluster: {
    source: 'appliance/cluster-main.ts',
    bundle: 'cluster.mjs',
    manifest: 'cluster.manifest.json',
    name: 'cluster bundle',
    failure: 'Cluster failed',
    quiet: false,
  },
  // `npm run proxy`: the appliance with its /v1 forwarded to a real gateway and checked (issue 33).
  proxy: {
    source: 'appliance/proxy-main.ts',
    bundle: 'proxy.mjs',
    manifest: 'proxy.manifest.json',
    name: 'proxy bundle',
    failure: 'Proxy failed',
    quiet: false,
    companions: {
      'backend-sim': { source: 'appliance/backend-sim-child.ts', bundle: 'backend-sim.mjs', prestart: true },
    },
  },
};
/** Exit code of a start before `npm ci`, as that of an unsupported Node.js: the machine is not set up yet. */
const MISSING_DEPENDENCIES_EXIT_CODE = 2;
// `--entry=<name>` is the launcher's own argument: taken out of argv, so the entry sees only its own.
const entryArg = process.argv[2]?.startsWith('--entry=')
  ? process.argv.splice(2, 1)[0].slice('--entry='.length)
  : 'server';
if (!Object.hasOwn(ENTRIES, entryArg)) {
  console.error(`appliance/start.mjs: unknown --entry=${entryArg}; one of: ${Object.keys(ENTRIES).join(', ')}`);
  process.exit(2);
}
const SPEC = ENTRIES[entryArg];

const LAUNCHER = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(LAUNCHER), '..');

// `npm start` or `npm run cli` before `npm ci`: one line saying what to run, instead of a MODULE_NOT_FOUND stack
// trace from the first package loaded. Every dependency package.json names is at the top of node_modules once
// installed (npm places direct dependencies there); a stat each, before anything is loaded from them.
const missingDependency = Object.keys(
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies ?? {},
).find((name) => !statSync(path.join(ROOT, 'node_modules', name, 'package.json'), { throwIfNoEntry: false }));
if (missingDependency) {
  const missing = statSync(path.join(ROOT, 'node_modules'), { throwIfNoEntry: false })
    ? `node_modules/${missingDependency}`
    : 'node_modules';
  console.error(
    `${SPEC.failure}: the dependencies are not installed (no ${missing}): run \`npm ci\` in ${ROOT} first.`,
  );
  process.exit(MISSING_DEPENDENCIES_EXIT_CODE);
}
startTrace('launcher', 'dependencies checked');
const ENTRY = path.resolve(ROOT, process.env.START_ENTRY || SPEC.source);
const CACHE_DIR = path.resolve(ROOT, process.env.START_CACHE_DIR || '.cache/start');
const BUNDLE = path.join(CACHE_DIR, SPEC.bundle);
const MANIFEST = path.join(CACHE_DIR, SPEC.manifest);
const COMPANIONS = Object.entries(SPEC.companions ?? {}).map(([name, c]) => ({
  name,
  entry: path.resolve(ROOT, c.source),
  bundle: path.join(CACHE_DIR, c.bundle),
  prestart: c.prestart === true,
}));

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

/**
 * What a bundle depends on besides its inputs; when one differs, it is rebuilt. The launcher's own
 * size and mtime stand for its version (an edit of the build options rebuilds).
 */
function buildKey() {
  return {
    [rel(LAUNCHER)]: fileStamp(LAUNCHER),
    'tsconfig.json': fileStamp(path.join(ROOT, 'tsconfig.json')),
    esbuild: esbuildVersion(),
    entry: ENTRY,
    companions: COMPANIONS.map((c) => c.entry),
    checkout: ROOT,
  };
}

/**
 * Why the cached bundle cannot be used (null when it can), and how many inputs were checked.
 * Only stats files (size and mtime of each): esbuild is not even loaded when nothing changed.
 */
function staleReason(key) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return { reason: 'no cached bundle' };
  }
  if (!sameStamp(manifest.bundle, fileStamp(BUNDLE))) return { reason: 'no cached bundle' };
  for (const c of COMPANIONS)
    if (!sameStamp(manifest.companions?.[c.name], fileStamp(c.bundle))) return { reason: `no cached ${c.name} bundle` };
  for (const [name, value] of Object.entries(key)) {
    if (JSON.stringify(manifest.key?.[name]) !== JSON.stringify(value)) return { reason: `${name} changed` };
  }
  const inputs = Object.entries(manifest.inputs ?? {});
  for (const [file, stamp] of inputs) {
    if (!sameStamp(stamp, fileStamp(path.resolve(ROOT, file)))) return { reason: `${file} changed` };
  }
  return { reason: null, checked: inputs.length };
}

/** Native addons cannot be bundled: they load from node_modules as before. */
const EXTERNAL = ['better-sqlite3'];

/**
 * Paths relative to a file stay relative to that file: in each source `import.meta.url` (and
 * `.dirname`, `.filename`) becomes the source's own, and in packages `__dirname` / `__filename`
 * their own directory and name (swagger-ui serves its static files from there, pino and
 * thread-stream start workers from there). So ../package.json, ../console/dist,
 * ./audit-worker.mjs and createRequire resolve as they do unbundled, wherever the cache lives.
 * Each file is stamped before it is read: one edited during the build makes the next start
 * build again.
 */
const ownPaths = (stamps) => ({
  name: 'own-paths',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async ({ path: file }) => {
      stamps.set(file, fileStamp(file));
      let text = await readFile(file, 'utf8');
      const loader = /\.[cm]?tsx?$/.test(file)
        ? file.endsWith('x')
          ? 'tsx'
          : 'ts'
        : file.endsWith('x')
          ? 'jsx'
          : 'js';
      text = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
        .replaceAll('import.meta.filename', JSON.stringify(file))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)));
      // A file that declares its own (an ES module computing them) keeps them.
      if (
        file.includes(`${path.sep}node_modules${path.sep}`) &&
        !/\b(?:var|let|const)\s+__(?:dirname|filename)\b/.test(text)
      ) {
        text = text
          .replace(/(?<![.\w$])__dirname\b/g, JSON.stringify(path.dirname(file)))
          .replace(/(?<![.\w$])__filename\b/g, JSON.stringify(file));
      }
      return { contents: text, loader };
    });
  },
});

async function build(key) {
  const esbuild = await import('esbuild');
  const { ownSourcesMap } = await import('./own-sources-map.mjs');
  const stamps = new Map();
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: ROOT,
      // Each bundle whole (no shared chunks): a companion loads its own modules only.
      entryPoints: [{ entry: ENTRY, bundle: BUNDLE }, ...COMPANIONS].map((b) => ({
        in: b.entry,
        out: path.basename(b.bundle, '.mjs'),
      })),
      outdir: CACHE_DIR,
      outExtension: { '.js': '.mjs' },
      write: false,
      bundle: true,
      external: EXTERNAL,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      keepNames: true,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [ownPaths(stamps)],
      // For the packages' own require() of builtins and of what is resolved at run time.
      banner: {
        js: "import { createRequire as __startCreateRequire } from 'node:module'; const require = __startCreateRequire(import.meta.url);",
      },
    });
  } catch (error) {
    const messages = error?.errors?.length
      ? await esbuild.formatMessages(error.errors, { kind: 'error', color: false })
      : [String(error?.message ?? error)];
    console.error(
      `${SPEC.failure}: ${rel(ENTRY)} does not build (${messages.length} error${messages.length === 1 ? '' : 's'}):\n\n${messages.join('\n').trimEnd()}`,
    );
    process.exit(1);
  }
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(ROOT, input);
    inputs[rel(file)] = stamps.get(file) ?? fileStamp(file);
  }
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    // Packages left out of the bundle resolve from node_modules above it: outside the checkout, a link.
    if (
      rel(CACHE_DIR).startsWith('..') &&
      !lstatSync(path.join(CACHE_DIR, 'node_modules'), { throwIfNoEntry: false })
    ) {
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(CACHE_DIR, 'node_modules'), 'junction');
    }
    // Written aside and renamed, the bundle after its map and its companions and before the manifest: a start
    // running at the same time sees the old files or the new ones.
    const tmp = `.${process.pid}.tmp`;
    const outputs = result.outputFiles;
    const order = (o) => (o.path.endsWith('.map') ? 0 : o.path === BUNDLE ? 2 : 1);
    for (const output of [...outputs].sort((a, b) => order(a) - order(b))) {
      writeFileSync(output.path + tmp, output.path.endsWith('.map') ? ownSourcesMap(output.text) : output.contents);
      renameSync(output.path + tmp, output.path);
    }
    const companions = Object.fromEntries(COMPANIONS.map((c) => [c.name, fileStamp(c.bundle)]));
    writeFileSync(MANIFEST + tmp, `${JSON.stringify({ key, bundle: fileStamp(BUNDLE), companions, inputs })}\n`);
    renameSync(MANIFEST + tmp, MANIFEST);
  } catch (error) {
    console.error(
      `${SPEC.failure}: cannot write the ${SPEC.name} to ${CACHE_DIR} (${error.message}); START_CACHE_DIR moves it.`,
    );
    process.exit(1);
  }
  return Object.keys(inputs).length;
}

const started = performance.now();
const key = buildKey();
const { reason, checked } = staleReason(key);
if (reason) {
  const files = await build(key);
  (SPEC.quiet ? console.error : console.log)(
    `${SPEC.name} built (${reason}): ${files} files in ${Math.round(performance.now() - started)} ms → ${rel(BUNDLE)}`,
  );
} else if (!SPEC.quiet) {
  console.log(
    `${SPEC.name} is up to date (${checked} files checked in ${Math.round(performance.now() - started)} ms, ${rel(BUNDLE)})`,
  );
}
startTrace('launcher', reason ? 'bundle built' : 'bundle checked');
// Stack traces name the TypeScript sources, as they did under tsx; the map is read at the first stack formatted.
mapStackTraces([BUNDLE]);
// The file this entry runs from: a process the entry starts again (the cluster's gateways) runs it directly;
// and its companions' (backend-sim's child process runs its own).
globalThis.applianceBundle = BUNDLE;
globalThis.applianceBundles = Object.fromEntries(COMPANIONS.map((c) => [c.name, c.bundle]));
// backend-sim's process loads its bundle (on the other core) while this one loads the server's, which takes longer:
// it then waits for its configuration, which appliance/backend-sim-process.ts sends once the stack may open the
// clinics. If the entry never takes it (a refused start), it exits with this process (its IPC channel closes).
globalThis.applianceCompanions = Object.fromEntries(
  COMPANIONS.filter((c) => c.prestart).map((c) => {
    const child = spawn(process.execPath, [...process.execArgv, c.bundle], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('error', () => undefined); // seen by the entry as a child that is not running: it starts another
    return [c.name, child];
  }),
);
startTrace('launcher', 'companions spawned');
await import(pathToFileURL(BUNDLE).href);
