import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import {
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * List latencies at scale (issue 15 item 5): signed requests through the whole stack (gateway,
 * backend-sim, SQLite) on a small tenant and on a large one, p50 and p99 of each list, and the
 * ratio large / small of the p50. Targets: first pages, filters and the `nome` search within 2×
 * the small tenant, a deep page (offset at 80 % of the rows) within 5×.
 *
 * Seeded tenants are cached under `cacheDir` (default `$TMPDIR/gw-bench-scale-cache`), keyed by the
 * seed parameters and the seed's source, so only the first run pays the seed. Every run copies them
 * into a fresh data dir, starts the stack in a child process (`--serve`, so the measuring client does
 * not share the server's event loop) and sends one request at a time over one keep-alive socket,
 * alternating small and large so drift affects both alike. Bounded: `requests` per list and tenant,
 * and `caseTimeLimitMs` per list (past it, a list still gets 10 measured pairs).
 *
 * `npx tsx bench/scale.ts` prints a markdown table (`--json` prints the results as JSON).
 */

export interface TenantSize {
  patients: number;
  exams: number;
  appointments: number;
  seed: string;
}

export interface ScaleOptions {
  /** Where seeded tenants are kept between runs. */
  cacheDir?: string;
  small?: Partial<TenantSize>;
  large?: Partial<TenantSize>;
  /** Measured requests per list and tenant (default 300). */
  requests?: number;
  /** Unmeasured requests per list and tenant first (default 30). */
  warmup?: number;
  /** Upper bound per list, both tenants included (default 30 s). */
  caseTimeLimitMs?: number;
  /** Only the lists whose name contains one of these (default: env SCALE_CASES, comma-separated; empty: all). */
  cases?: string[];
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

export interface TenantLatency {
  path: string;
  p50: number;
  p99: number;
  /** meta.total of the answer. */
  total: number;
  samples: number;
}

export interface ScaleResult {
  name: string;
  small: TenantLatency;
  large: TenantLatency;
  /** large p50 / small p50 */
  ratio: number;
  /** The ratio the issue allows (2 or 5). */
  target: number;
  met: boolean;
}

const DEFAULT_SMALL: TenantSize = { patients: 300, exams: 1_500, appointments: 0, seed: 'scale-small-1' };
const DEFAULT_LARGE: TenantSize = { patients: 200_000, exams: 1_000_000, appointments: 0, seed: 'scale-large-1' };
const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

interface CachedTenant {
  slug: string;
  file: string;
  medicoExame: number;
}

/**
 * The cache key: sizes, seed, the generator's sources (a changed generator may produce other rows) and
 * backend-sim's migrations (a cached tenant is migrated in place: a checkout without one of them could not
 * open it).
 */
function cacheKey(size: TenantSize): string {
  const h = createHash('sha256').update(JSON.stringify(size));
  h.update(readdirSync(path.join(ROOT, 'backend-sim/db/migrations')).sort().join('\n'));
  const sources = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );
  for (const f of sources('seed').sort()) h.update(f).update(readFileSync(path.join(ROOT, f)));
  return h.digest('hex').slice(0, 16);
}

async function cachedTenant(
  cacheDir: string,
  slug: string,
  size: TenantSize,
  log: (line: string) => void,
): Promise<CachedTenant> {
  const dir = path.join(cacheDir, `${slug}-${cacheKey(size)}`);
  const doneFile = path.join(dir, 'done.json');
  const { openTenantDatabase } = await import('../backend-sim/db/database.ts');
  if (!existsSync(doneFile)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { seedTenant } = await import('../seed/seed.ts');
    log(`seeding ${slug} (${size.patients} patients, ${size.exams} exams) into ${dir}`);
    const started = performance.now();
    const r = await seedTenant({
      dataDir: dir,
      slug,
      seed: size.seed,
      patients: size.patients,
      exams: size.exams,
      appointments: size.appointments,
      profile: 'rich',
    });
    log(`seeded ${slug} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    writeFileSync(doneFile, JSON.stringify({ file: r.file, medicoExame: r.medicos.exame[0] }));
  }
  const done = JSON.parse(readFileSync(doneFile, 'utf8')) as { file: string; medicoExame: number };
  // A migration shipped after the cache was filled runs once here, not in every measured run.
  const opened = await openTenantDatabase(done.file, { create: false });
  await opened.close();
  return { slug, file: done.file, medicoExame: done.medicoExame };
}

interface Served {
  child: ChildProcess;
  url: string;
  keys: Record<string, { apiKey: string; apiSecret: string }>;
}

function serve(dataDir: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [SELF, '--serve', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ...JSON.parse(line) }));
    child.once('exit', (code) => reject(new Error(`bench/scale.ts --serve exited with ${code}`)));
  });
}

async function stop(served: Served): Promise<void> {
  served.child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => served.child.once('exit', () => resolve()));
  served.child.kill('SIGTERM');
  const timer = setTimeout(() => served.child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

function signedHeaders(
  key: { apiKey: string; apiSecret: string },
  method: string,
  target: string,
  body: string,
): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', key.apiSecret).update(`${ts}.${method} ${target}\n${body}`).digest('hex');
  return { 'x-api-key': key.apiKey, 'x-timestamp': ts, 'x-signature': signature };
}

/** One signed GET; resolves with its duration (ms, from sending to the last byte) and parsed body. */
function timedGet(
  agent: http.Agent,
  base: URL,
  key: Served['keys'][string],
  target: string,
): Promise<{ ms: number; status: number; body: any }> {
  return timedRequest(agent, base, key, 'GET', target, '');
}

/** One signed request (a POST with a fresh Idempotency-Key); its duration and parsed body. */
function timedRequest(
  agent: http.Agent,
  base: URL,
  key: Served['keys'][string],
  method: 'GET' | 'POST',
  target: string,
  body: string,
): Promise<{ ms: number; status: number; body: any }> {
  const headers: Record<string, string> = signedHeaders(key, method, target, body);
  if (method === 'POST')
    Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': randomUUID() });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ host: base.hostname, port: base.port, path: target, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - started;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ ms, status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
      });
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`timeout on ${target}`)));
    req.on('error', reject);
    req.end(body || undefined);
  });
}

const MIN_SAMPLES = 10;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round = (ms: number) => Math.round(ms * 100) / 100;

async function measureCase(
  agent: http.Agent,
  served: Served,
  targets: { small: string; large: string },
  slugs: { small: string; large: string },
  o: { requests: number; warmup: number; limitMs: number; writeFirst?: boolean },
): Promise<{ small: TenantLatency; large: TenantLatency }> {
  const base = new URL(served.url);
  const times = { small: [] as number[], large: [] as number[] };
  const totals = { small: -1, large: -1 };
  let written = 0;
  const once = async (which: 'small' | 'large', record: boolean) => {
    if (o.writeFirst) {
      // Not measured: a patient whose name matches no search of this bench, so the totals stay put.
      const body = JSON.stringify({ nome: `Escrita Antes Da Busca ${++written}`, data_nascimento: '1980-01-01' });
      const w = await timedRequest(agent, base, served.keys[slugs[which]], 'POST', '/v1/pacientes', body);
      if (w.status !== 201)
        throw new Error(
          `the write before ${targets[which]} on ${slugs[which]}: ${w.status} ${JSON.stringify(w.body).slice(0, 300)}`,
        );
    }
    const r = await timedGet(agent, base, served.keys[slugs[which]], targets[which]);
    if (r.status !== 200)
      throw new Error(`${targets[which]} on ${slugs[which]}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    totals[which] = r.body.meta.total;
    if (record) times[which].push(r.ms);
  };
  const started = performance.now();
  // Warm-up gets a quarter of the time at most; at least MIN_SAMPLES are measured even on a slow list.
  for (let i = 0; i < o.warmup && performance.now() < started + o.limitMs / 4; i++) {
    await once('small', false);
    await once('large', false);
  }
  for (let i = 0; i < o.requests && (i < MIN_SAMPLES || performance.now() < started + o.limitMs); i++) {
    // Alternate which goes first, so neither always follows the other.
    const order: ('small' | 'large')[] = i % 2 ? ['small', 'large'] : ['large', 'small'];
    for (const w of order) await once(w, true);
  }
  const stats = (which: 'small' | 'large'): TenantLatency => {
    const sorted = [...times[which]].sort((a, b) => a - b);
    return {
      path: targets[which],
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      total: totals[which],
      samples: sorted.length,
    };
  };
  return { small: stats('small'), large: stats('large') };
}

export async function measureScale(options: ScaleOptions = {}): Promise<ScaleResult[]> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cacheDir = options.cacheDir ?? path.join(tmpdir(), 'gw-bench-scale-cache');
  const small: TenantSize = { ...DEFAULT_SMALL, ...options.small };
  const large: TenantSize = { ...DEFAULT_LARGE, ...options.large };
  const o = {
    requests: options.requests ?? 300,
    warmup: options.warmup ?? 30,
    limitMs: options.caseTimeLimitMs ?? 30_000,
  };
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const tenants = {
    small: await cachedTenant(cacheDir, 'scale-small', small, log),
    large: await cachedTenant(cacheDir, 'scale-large', large, log),
  };

  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-scale-'));
  // One keep-alive socket: requests go one at a time.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let served: Served | null = null;
  try {
    mkdirSync(path.join(dataDir, 'backend'), { recursive: true, mode: 0o700 });
    for (const t of Object.values(tenants))
      copyFileSync(t.file, path.join(dataDir, 'backend', `${t.slug}.db`), constants.COPYFILE_FICLONE);
    served = await serve(dataDir);
    const slugs = { small: tenants.small.slug, large: tenants.large.slug };

    // Totals first, for the deep offsets (80 % of the rows).
    const probe = async (which: 'small' | 'large', target: string) =>
      (await timedGet(agent, new URL(served!.url), served!.keys[slugs[which]], target)).body.meta.total as number;
    const patientTotals = {
      small: await probe('small', '/v1/pacientes?limit=1'),
      large: await probe('large', '/v1/pacientes?limit=1'),
    };
    const examTotals = {
      small: await probe('small', '/v1/exames?limit=1'),
      large: await probe('large', '/v1/exames?limit=1'),
    };
    const reportTotals = {
      small: await probe('small', '/v1/laudos?limit=1'),
      large: await probe('large', '/v1/laudos?limit=1'),
    };
    const deep = (totals: { small: number; large: number }, prefix: string) => ({
      small: `${prefix}&offset=${Math.floor(totals.small * 0.8)}`,
      large: `${prefix}&offset=${Math.floor(totals.large * 0.8)}`,
    });
    const same = (p: string) => ({ small: p, large: p });
    const cases: { name: string; targets: { small: string; large: string }; target: number; writeFirst?: boolean }[] = [
      { name: 'patients, first page', targets: same('/v1/pacientes?limit=50'), target: 2 },
      { name: 'patients, deep page (80 %)', targets: deep(patientTotals, '/v1/pacientes?limit=50'), target: 5 },
      { name: 'patients, nome=SILVA', targets: same('/v1/pacientes?limit=50&nome=SILVA'), target: 2 },
      // The small tenant has few SILVAs: at limit=50 the large answer also carries more items (gateway
      // validation and JSON per item). At limit=3 both answers carry 3 items: the search and its count alone.
      { name: 'patients, nome=SILVA, 3 items each', targets: same('/v1/pacientes?limit=3&nome=SILVA'), target: 2 },
      // A total is counted once per database state (decisions P25-B1): the rows above answer the same search
      // again on an unchanged clinic. Here a create (not measured) comes before each search, so each one
      // applies the search index's queue and counts its matches afresh.
      {
        name: 'patients, nome=SILVA, 3 items, a create before each',
        targets: same('/v1/pacientes?limit=3&nome=SILVA'),
        target: 2,
        writeFirst: true,
      },
      { name: 'patients, ativo=1', targets: same('/v1/pacientes?limit=50&ativo=1'), target: 2 },
      { name: 'exams, first page', targets: same('/v1/exames?limit=50'), target: 2 },
      {
        name: 'exams, doctor filter',
        targets: {
          small: `/v1/exames?limit=50&medico_id=${tenants.small.medicoExame}`,
          large: `/v1/exames?limit=50&medico_id=${tenants.large.medicoExame}`,
        },
        target: 2,
      },
      { name: 'exams, status_laudo=ASSINADO', targets: same('/v1/exames?limit=50&status_laudo=ASSINADO'), target: 2 },
      { name: 'exams, deep page (80 %)', targets: deep(examTotals, '/v1/exames?limit=50'), target: 5 },
      { name: 'reports, first page', targets: same('/v1/laudos?limit=50'), target: 2 },
      { name: 'reports, deep page (80 %)', targets: deep(reportTotals, '/v1/laudos?limit=50'), target: 5 },
    ];
    const wanted =
      options.cases ??
      (process.env.SCALE_CASES ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    const results: ScaleResult[] = [];
    for (const c of cases.filter((c) => wanted.length === 0 || wanted.some((w) => c.name.includes(w)))) {
      log(`measuring ${c.name}`);
      const m = await measureCase(agent, served, c.targets, slugs, { ...o, writeFirst: c.writeFirst });
      const ratio = m.large.p50 / m.small.p50;
      results.push({
        name: c.name,
        small: m.small,
        large: m.large,
        ratio: Math.round(ratio * 100) / 100,
        target: c.target,
        met: ratio <= c.target,
      });
    }
    return results;
  } finally {
    if (served) await stop(served);
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function scaleTable(results: ScaleResult[]): string {
  const lines = [
    '| list | small: path | total | p50 / p99 ms | large: path | total | p50 / p99 ms | p50 × | target |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.name} | \`${r.small.path}\` | ${r.small.total.toLocaleString('en')} | ${r.small.p50} / ${r.small.p99} | \`${r.large.path}\` | ` +
        `${r.large.total.toLocaleString('en')} | ${r.large.p50} / ${r.large.p99} | **${r.ratio.toFixed(2)}** | ≤ ${r.target} ${r.met ? 'met' : 'NOT met'} |`,
    );
  }
  return lines.join('\n');
}

/** The child process: the whole stack on `dataDir`, every tenant found there registered, one all-scope key each. */
async function serveMain(dataDir: string): Promise<void> {
  const [{ ephemeralConfig }, { startStack }, { ALL_SCOPES }] = await Promise.all([
    import('../server/config.ts'),
    import('../appliance/stack.ts'),
    import('../contracts/scopes.ts'),
  ]);
  const slugs = readdirSync(path.join(dataDir, 'backend'))
    .filter((f) => f.endsWith('.db'))
    .map((f) => f.slice(0, -3));
  // The benchmark measures lists, not the quota.
  const stack = await startStack(ephemeralConfig(dataDir, { RATE_LIMIT_PER_MINUTE: '100000000' }));
  const keys: Served['keys'] = {};
  for (const slug of slugs) {
    await stack.tenants.create({ slug, nome: `Bench ${slug}` });
    const key = await stack.keys.create({ tenantSlug: slug, scopes: [...ALL_SCOPES] });
    keys[slug] = { apiKey: key.api_key, apiSecret: key.api_secret };
  }
  process.stdout.write(`${JSON.stringify({ url: stack.gatewayUrl, keys })}\n`);
  process.on('SIGTERM', () => void stack.close().then(() => process.exit(0)));
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const args = process.argv.slice(2);
  if (args[0] === '--serve') {
    await serveMain(args[1]!);
  } else {
    const results = await measureScale({
      requests: process.env.SCALE_REQUESTS ? Number(process.env.SCALE_REQUESTS) : undefined,
    });
    console.log(args.includes('--json') ? JSON.stringify(results, null, 2) : scaleTable(results));
  }
}
