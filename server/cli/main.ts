import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { API_RELEASE, loadConfig, ConfigError } from '../config.ts';
import { openGatewayServices, type GatewayServices } from '../stack.ts';
import { ALL_SCOPES, SCOPE_PRESETS, isScope, type Scope } from '../../contracts/scopes.ts';
import { KeyServiceError } from '../keys/keys.service.ts';
import { TenantServiceError } from '../tenants/tenants.service.ts';
import { resetTenant } from '../tenants/tenant-reset.ts';
import { confirmReset, describeReset, explainResetFailure, type ResetCliOptions } from './tenant-reset.ts';
import { addClockCommands } from './clock.ts';
import { readRuntimeFile } from '../runtime-file.ts';
import { ApiError } from '../errors.ts';
import { medicoListItem } from '../../contracts/schemas/medicos.ts';

/** Operator CLI over DATA_DIR. Results go to stdout; messages and errors to stderr. */
class UsageError extends Error {}

function parseScopeList(value: string): Scope[] {
  const preset = SCOPE_PRESETS[value];
  if (preset) return [...preset];
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((s) => !isScope(s));
  if (items.length === 0 || unknown.length) {
    throw new InvalidArgumentError(
      `unknown scope(s): ${unknown.join(', ') || '(none given)'}. Use "all", "read-only", "sandbox" or a comma list of: ${ALL_SCOPES.join(', ')}`,
    );
  }
  return [...new Set(items)] as Scope[];
}

function parseId(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

function parseMedico(value: string): number {
  if (!/^(0|[1-9]\d*)$/.test(value)) throw new InvalidArgumentError('must be a doctor id (integer >= 0; 0 = unbound)');
  return Number(value);
}

async function withServices<T>(fn: (services: GatewayServices) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // The stack running on DATA_DIR, on whatever ports it was started with (DATA_DIR/runtime.json);
  // without one, the backend the environment names (BACKEND_URL, BACKEND_PORT).
  const running = readRuntimeFile(config.dataDir);
  const services = await openGatewayServices(config, running?.backend.url ?? config.backend.url);
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

/** `--medico` must name a doctor of that clinic: doctors are backend-sim's data, so the running stack is asked. */
async function requireMedico(s: GatewayServices, tenantSlug: string, medicoId: number): Promise<void> {
  if (medicoId === 0) return;
  if (!(await s.tenants.get(tenantSlug))) throw new UsageError(`tenant "${tenantSlug}" does not exist`);
  const base = `/tenants/${encodeURIComponent(tenantSlug)}/medicos`;
  try {
    await s.backend.call({ method: 'GET', path: `${base}/${medicoId}` }, z.unknown());
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      const doctors = await s.backend.call({ method: 'GET', path: base, query: { limit: 1000 } }, z.array(medicoListItem)).then((r) => r.data, () => []);
      const known = [...doctors].sort((a, b) => a.id - b.id).slice(0, 10).map((d) => `${d.id} (${d.nome})`).join(', ');
      throw new UsageError(
        `--medico ${medicoId}: no such doctor in clinic "${tenantSlug}"; ` +
          (doctors.length === 0 ? 'it has no doctors yet' : `its doctors: ${known}${doctors.length > 10 ? ` and ${doctors.length - 10} more` : ''}`),
      );
    }
    if (error instanceof ApiError && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_TIMEOUT')) {
      throw new UsageError(`--medico ${medicoId} cannot be checked: the appliance is not running on this DATA_DIR (start it with \`npm start\`; the clinic's doctors are kept by its backend)`);
    }
    throw error;
  }
}

const print = (value: unknown): void => void process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
const info = (text: string) => process.stderr.write(`${text}\n`);

function table(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(none)';
  const cols = Object.keys(rows[0]);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c] ?? ''))))].join('\n');
}

export function buildCli(): Command {
  const program = new Command('cli')
    .description('Clinic Exams Gateway operator CLI (acts on DATA_DIR, default ./data)')
    .version(API_RELEASE, '-V, --version', 'the appliance release')
    .exitOverride()
    .showHelpAfterError();

  const tenants = program.command('tenants').description('clinics (tenants)');
  tenants
    .command('list')
    .description('every clinic: slug, name, sandbox or not, status')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const rows = await withServices((s) => s.tenants.list());
      if (opts.json) return print(rows);
      print(table(rows.map((t) => ({ id: t.id, slug: t.slug, nome: t.nome, sandbox: t.is_sandbox ? 'yes' : 'no', status: t.status, criado: t.created_at }))));
    });
  tenants
    .command('create')
    .description('register a clinic and have the running backend create its (empty) database')
    .argument('<slug>', 'lowercase letters, digits and hyphens')
    .option('--name <nome>', 'display name (default: the slug)')
    .option('--sandbox', 'public sandbox tenant: lower rate limit')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, opts: { name?: string; sandbox?: boolean; json?: boolean }) => {
      const { tenant, backendReady } = await withServices((s) => s.tenants.create({ slug, nome: opts.name ?? slug, sandbox: opts.sandbox }));
      if (!backendReady) info('note: backend-sim is not running; the clinic database will be created at the next `npm start`.');
      if (opts.json) return print(tenant);
      info(`tenant "${tenant.slug}" created (id ${tenant.id})`);
    });
  tenants
    .command('reset')
    .description('put a clinic back to its first-start data (same ids, same rows) and forget its idempotency keys; keys stay valid')
    .argument('<slug>', 'the clinic')
    .option('--audit', 'also delete its audit entries')
    .option('--files', 'also delete the files uploaded for it')
    .option('--yes', 'do not ask for confirmation (scripts, CI)')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, opts: ResetCliOptions) => {
      await confirmReset(slug, opts);
      const result = await withServices((s) => resetTenant({ db: s.gatewayDb.db, backend: s.backend }, slug, opts).catch(explainResetFailure));
      if (opts.json) return print(result);
      info(describeReset(result));
    });

  const keys = program.command('keys').description('API keys');
  keys
    .command('list')
    .description('API keys, masked (never a secret); every clinic\'s unless --tenant')
    .option('--tenant <slug>', 'only this tenant')
    .option('--json', 'machine-readable output')
    .action(async (opts: { tenant?: string; json?: boolean }) => {
      const [rows, tenantList] = await withServices((s) => Promise.all([s.keys.list(opts.tenant), s.tenants.list()]));
      const slugOf = new Map(tenantList.map((t) => [t.id, t.slug]));
      if (opts.json) return print(rows.map((k) => ({ ...k, tenant: slugOf.get(k.tenant_id) ?? null })));
      print(
        table(
          rows.map((k) => ({
            id: k.id,
            ...(opts.tenant ? {} : { tenant: slugOf.get(k.tenant_id) ?? '?' }),
            key: k.api_key_masked,
            status: k.status,
            medico: k.medico_id || '-',
            escopos: k.escopos.length === ALL_SCOPES.length ? 'all' : k.escopos.join(','),
            last_used: k.last_used_at ?? '-',
          })),
        ),
      );
    });
  keys
    .command('create')
    .description('issue a key (its secret is shown once); --medico binds it to a doctor of that clinic')
    .requiredOption('--tenant <slug>', 'tenant of the key')
    .requiredOption('--scopes <list>', '"all", "read-only", "sandbox" or a comma list of scopes', parseScopeList)
    .option('--medico <id>', 'bind the key to a doctor (auto-filter)', parseMedico)
    .option('--label <text>', 'what the key is for')
    .option('--json', 'print only {"chave_id","api_key","api_secret"}')
    .action(async (opts: { tenant: string; scopes: Scope[]; medico?: number; label?: string; json?: boolean }) => {
      const issued = await withServices(async (s) => {
        await requireMedico(s, opts.tenant, opts.medico ?? 0);
        return s.keys.create({ tenantSlug: opts.tenant, scopes: opts.scopes, medicoId: opts.medico, label: opts.label });
      });
      if (opts.json) return print(JSON.stringify(issued));
      print(`chave_id:   ${issued.chave_id}\napi_key:    ${issued.api_key}\napi_secret: ${issued.api_secret}`);
      info('The secret is shown only now. Store it in a vault; it cannot be retrieved later (rotate to get a new one).');
    });
  keys
    .command('rotate')
    .description('new secret for a key (same api_key); the old secret fails at once')
    .argument('<id>', 'key id (chave_id)', parseId)
    .option('--json', 'print only {"chave_id","api_key","api_secret"}')
    .action(async (id: number, opts: { json?: boolean }) => {
      const issued = await withServices((s) => s.keys.rotate(id));
      if (opts.json) return print(JSON.stringify(issued));
      print(`chave_id:   ${issued.chave_id}\napi_key:    ${issued.api_key}\napi_secret: ${issued.api_secret}`);
      info('The previous secret no longer works. The new one is shown only now.');
    });
  keys
    .command('revoke')
    .description('revoke a key for good (its calls answer AUTH_KEY_REVOKED)')
    .argument('<id>', 'key id (chave_id)', parseId)
    .action(async (id: number) => {
      const key = await withServices((s) => s.keys.revoke(id));
      info(`key ${key.id} (${key.api_key_masked}) revoked`);
    });
  keys
    .command('import-legacy')
    .description('register a key of the legacy system whose secret cannot be carried over (answers AUTH_KEY_LEGACY until rotated)')
    .requiredOption('--tenant <slug>', 'tenant of the key')
    .requiredOption('--key <api_key>', 'the legacy public key identifier')
    .requiredOption('--scopes <list>', 'scopes', parseScopeList)
    .action(async (opts: { tenant: string; key: string; scopes: Scope[] }) => {
      const id = await withServices((s) => s.keys.importLegacy({ tenantSlug: opts.tenant, apiKey: opts.key, scopes: opts.scopes }));
      info(`legacy key registered with id ${id}; rotate it to issue a usable secret`);
    });
  addClockCommands(program);
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof KeyServiceError || error instanceof TenantServiceError || error instanceof UsageError || error instanceof ConfigError) {
      info(`error: ${error.message}`);
      return 1;
    }
    info(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
