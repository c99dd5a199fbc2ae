import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ServiceError } from '../../server/service-error.ts';
import { z } from 'zod';
import { API_RELEASE, loadConfig, ConfigError } from '../../server/config.ts';
import { loadApplianceConfig } from '../gateway-config.ts';
import type { GatewayServices } from '../stack.ts';
import { ALL_SCOPES, SCOPE_PRESETS, isScope, type Scope } from '../../contracts/scopes.ts';
import { KeyServiceError } from '../../server/keys/keys.service.ts';
import { TenantServiceError } from '../../server/tenants/tenants.service.ts';
import { resetTenant } from '../../server/tenants/tenant-reset.ts';
import {
  AUDIT_FLAG_GONE,
  confirmReset,
  describeReset,
  explainResetFailure,
  resetRefusalFor,
  type ResetCliOptions,
} from './tenant-reset.ts';
import { addClockCommands } from './clock.ts';
import {
  addExpiryOptions,
  addListFilterOptions,
  expiryCell,
  expiryInput,
  listFilter,
  type ExpiryOptions,
  type ListFilterOptions,
} from './keys.ts';
import { doctorIdsMatching } from '../../server/keys/doctor-search.ts';
import { CloneCliError, cloneCommand, describeClone, describeDrop, dropCommand } from './clones.ts';
import { CLONE_TTL_DEFAULT } from '../../contracts/admin/clones.ts';
import { addOperatorCommands } from './operators.ts';
import { addDatabaseCommands, CopyRefused } from './copy-to-postgres.ts';
import { addJournalPruneCommand } from './journal-prune.ts';
import { addJournalCommands, journalCliAction } from './journal.ts';
import { addStatsCommands } from './stats.ts';
import { addSnapshotCommands } from './snapshots.ts';
import { addProxyCommands } from './proxy.ts';
import { ApplianceClock } from '../../server/clock.ts';
import { issuedTokenDetail, OperatorTokenStore, type TokenTenants } from '../../server/operators/operator-tokens.ts';
import {
  ALL_TENANTS,
  OPERATOR_TOKEN_DEFAULT_DAYS,
  OPERATOR_TOKEN_MAX_DAYS,
  type OperatorTokenView,
} from '../../contracts/admin/operator-tokens.ts';
import { fromServiceError } from '../../server/admin/http.ts';
import { readRuntimeFile } from '../runtime-file.ts';
import { ApiError } from '../../server/errors.ts';
import { medicoListItem } from '../../contracts/schemas/medicos.ts';

/** Operator CLI over DATA_DIR. Results go to stdout; messages and errors to stderr. */
class UsageError extends Error {}

function parseScopeList(value: string): Scope[] {
  const preset = SCOPE_PRESETS[value];
  if (preset) return [...preset];
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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

/** A subcommand acting on one row by its id (`keys rotate 7`, `tokens revoke 3`). */
function onId(parent: Command, name: string, description: string, idHelp: string): Command {
  return parent.command(name).description(description).argument('<id>', idHelp, parseId);
}

function parseMedico(value: string): number {
  if (!/^(0|[1-9]\d*)$/.test(value)) throw new InvalidArgumentError('must be a doctor id (integer >= 0; 0 = unbound)');
  return Number(value);
}

function parseDays(value: string): number {
  const days = /^[1-9]\d*$/.test(value) ? Number(value) : NaN;
  if (!(days <= OPERATOR_TOKEN_MAX_DAYS))
    throw new InvalidArgumentError(`must be a whole number of days from 1 to ${OPERATOR_TOKEN_MAX_DAYS}`);
  return days;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The appliance clock of DATA_DIR (development mode follows clock.json): the gateway's time for journal entries and token expiry. */
function applianceClock(): ApplianceClock {
  const config = loadConfig();
  return new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
}

/** A service failure as the console API would answer it (status and code for the journal). */
function asApiError(error: unknown): unknown {
  try {
    fromServiceError(error);
  } catch (mapped) {
    return mapped;
  }
}

const tenantsText = (tenants: TokenTenants): string =>
  tenants === ALL_TENANTS ? '* (all clinics)' : tenants.join(', ');

async function withServices<T>(fn: (services: GatewayServices) => Promise<T>): Promise<T> {
  const config = loadApplianceConfig();
  // The stack running on DATA_DIR, on whatever ports it was started with (DATA_DIR/runtime.json);
  // without one, the backend the environment names (BACKEND_URL, BACKEND_PORT).
  const running = readRuntimeFile(config.dataDir);
  // Loaded when a command opens the services: `--version` and `--help` do not evaluate the whole stack.
  const { openGatewayServices } = await import('../stack.ts');
  const services = await openGatewayServices(config, running?.backend.url ?? config.backend.url);
  try {
    return await fn(services);
  } catch (error) {
    throw await withValidChoices(error, services);
  } finally {
    await services.close();
  }
}

/** At most this many valid choices are listed in an error; the list command shows them all. */
const MAX_CHOICES_LISTED = 20;

const listed = (items: string[]): string =>
  items.length <= MAX_CHOICES_LISTED
    ? items.join(', ')
    : `${items.slice(0, MAX_CHOICES_LISTED).join(', ')} and ${items.length - MAX_CHOICES_LISTED} more`;

/** `; clinics: a, b (see \`tenants list\`)`: what an unknown clinic's error adds. */
async function clinicChoices(s: GatewayServices): Promise<string> {
  const slugs = (await s.tenants.list()).map((t) => t.slug);
  return slugs.length === 0
    ? '; there is no clinic yet (`tenants create <slug>`)'
    : `; clinics: ${listed(slugs)} (see \`tenants list\`)`;
}

/**
 * An error naming something that does not exist says what does (issue 21 § 4): an unknown clinic lists the
 * clinics, an unknown key id the keys. The services' own errors name only what was asked for.
 */
async function withValidChoices(error: unknown, s: GatewayServices): Promise<unknown> {
  if (!(error instanceof Error)) return error;
  try {
    const code = error instanceof ServiceError ? error.code : null;
    if (code === 'tenant_not_found') return new UsageError(`${error.message}${await clinicChoices(s)}`);
    if (code === 'key_not_found') {
      const [keys, tenants] = await Promise.all([s.keys.list(), s.tenants.list()]);
      const slugOf = new Map(tenants.map((t) => [t.id, t.slug]));
      const ids = keys.map((k) => `${k.id} (${slugOf.get(k.tenant_id) ?? '?'}, ${k.status})`);
      return new UsageError(
        `${error.message}; ${ids.length === 0 ? 'there is no key yet (`keys create`)' : `keys: ${listed(ids)} (see \`keys list\`)`}`,
      );
    }
  } catch {
    // The list itself failed: the original error still says what went wrong.
  }
  return error;
}

/** `--medico` must name a doctor of that clinic: doctors are backend-sim's data, so the running stack is asked. */
async function requireMedico(s: GatewayServices, tenantSlug: string, medicoId: number): Promise<void> {
  if (medicoId === 0) return;
  if (!(await s.tenants.get(tenantSlug)))
    throw new UsageError(`tenant "${tenantSlug}" does not exist${await clinicChoices(s)}`);
  const base = `/tenants/${encodeURIComponent(tenantSlug)}/medicos`;
  try {
    await s.backend.call({ method: 'GET', path: `${base}/${medicoId}` }, z.unknown());
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      const doctors = await s.backend
        .call({ method: 'GET', path: base, query: { limit: 1000 } }, z.array(medicoListItem))
        .then(
          (r) => r.data,
          () => [],
        );
      const known = [...doctors]
        .sort((a, b) => a.id - b.id)
        .slice(0, 10)
        .map((d) => `${d.id} (${d.nome})`)
        .join(', ');
      throw new UsageError(
        `--medico ${medicoId}: no such doctor in clinic "${tenantSlug}"; ` +
          (doctors.length === 0
            ? 'it has no doctors yet'
            : `its doctors: ${known}${doctors.length > 10 ? ` and ${doctors.length - 10} more` : ''}`),
      );
    }
    if (error instanceof ApiError && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_TIMEOUT')) {
      throw new UsageError(
        `--medico ${medicoId} cannot be checked: the appliance is not running on this DATA_DIR (start it with \`npm start\`; the clinic's doctors are kept by its backend)`,
      );
    }
    throw error;
  }
}

const print = (value: unknown): void =>
  void process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
const info = (text: string) => process.stderr.write(`${text}\n`);

function table(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(none)';
  const cols = Object.keys(rows[0]);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(cols),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(cols.map((c) => String(r[c] ?? '')))),
  ].join('\n');
}

/** Copied from DATA_DIR/gateway.db whatever database the environment names. */
const FROM_GATEWAY_DB = new Set(['db copy-to-postgres']);

const commandPath = (command: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/**
 * Why DATA_DIR holds no appliance (null when it does): `npm start` makes one (gateway.db, or on PostgreSQL the
 * master key its keys are sealed with). A command would otherwise create an empty appliance there and answer about
 * it (`tenants list`: "(none)"), a mistyped or unset DATA_DIR looking like an appliance with nothing in it.
 */
function missingAppliance(config: ReturnType<typeof loadApplianceConfig>, gatewayDb: boolean): string | null {
  if (!existsSync(config.dataDir)) return 'the folder does not exist';
  if (gatewayDb || config.database.kind === 'sqlite')
    return existsSync(path.join(config.dataDir, 'gateway.db')) ? null : 'no gateway.db in it';
  if (config.masterKeyHex || existsSync(path.join(config.dataDir, 'master.key'))) return null;
  return 'no master.key in it';
}

/** Every command acts on an appliance's DATA_DIR: none makes one (`--help` and `--version` run no action). */
function requireAppliance(command: Command): void {
  const config = loadApplianceConfig();
  const missing = missingAppliance(config, FROM_GATEWAY_DB.has(commandPath(command)));
  if (missing)
    throw new UsageError(
      `DATA_DIR=${path.resolve(config.dataDir)} holds no appliance (${missing}): set DATA_DIR to the appliance's folder, or start one there first with \`npm start\``,
    );
}

/** `tenants reset <slug>`: confirmed (or refused, and journaled as refused), reset, journaled. */
async function resetCommand(slug: string, opts: ResetCliOptions): Promise<void> {
  if (opts.audit) throw new UsageError(AUDIT_FLAG_GONE);
  const refusal = resetRefusalFor(loadConfig());
  if (!refusal) await confirmReset(slug, opts);
  const result = await withServices(async (s) => {
    const clock = applianceClock();
    const started = { startedAt: clock.now(), startedPerf: performance.now() };
    const tenant = await s.tenants.get(slug);
    const subject = { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null };
    const command = `tenants reset ${slug}${opts.files ? ' --files' : ''}`;
    const journal = (detail: Record<string, unknown>, error?: unknown) =>
      journalCliAction(s.gatewayDb.db, {
        action: 'tenant.reset',
        command,
        ...started,
        subject: { ...subject, detail: { slug, files: Boolean(opts.files), ...detail } },
        error,
      });
    if (refusal) {
      // Journaled like the console's refusal: someone tried.
      await journal({}, new ApiError('OPERATION_NOT_ALLOWED', refusal)).catch(() => undefined);
      throw new UsageError(refusal);
    }
    let reset: Awaited<ReturnType<typeof resetTenant>>;
    try {
      reset = await resetTenant({ db: s.gatewayDb.db, backend: s.backend }, slug, { files: opts.files });
    } catch (error) {
      await journal({}, asApiError(error)).catch(() => undefined);
      return explainResetFailure(error);
    }
    await journal({ ...reset, journal_kept: true }).catch((error: unknown) => {
      throw new Error(
        `clinic "${slug}" was reset, but its journal entry could not be written: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return reset;
  });
  if (opts.json) return print(result);
  info(describeReset(result));
}

interface TokenCreateOptions {
  label: string;
  tenant?: string[];
  allTenants?: boolean;
  expiresInDays: number;
  operator?: string;
  clone?: boolean;
  json?: boolean;
}

/** `tokens create`: checks the operator and clinics, issues the token, journals it; the token shown once. */
async function createTokenCommand(opts: TokenCreateOptions): Promise<void> {
  const named = opts.tenant ?? [];
  if (opts.allTenants && named.length > 0)
    throw new UsageError('use either --tenant (repeatable) or --all-tenants, not both');
  if (!opts.allTenants && named.length === 0) {
    throw new UsageError(
      'name the clinics the token may reset: --tenant <slug> (repeat for more), or --all-tenants for every clinic',
    );
  }
  const label = opts.label.trim();
  if (label.length === 0 || label.length > 100) throw new UsageError('--label: 1 to 100 characters');
  const username = opts.operator ?? loadConfig().operator.username;
  const issued = await withServices(async (s) => {
    const db = s.gatewayDb.db;
    const operator = await db
      .selectFrom('operators')
      .select(['id', 'role', 'disabled_at'])
      .where('username', '=', username)
      .executeTakeFirst();
    if (!operator) {
      const names = (await db.selectFrom('operators').select('username').orderBy('username').execute()).map(
        (o) => o.username,
      );
      throw new UsageError(
        `operator "${username}" does not exist (--operator, or OPERATOR_USERNAME); operators: ${names.length ? listed(names) : '(none yet: `npm start` creates the first)'}`,
      );
    }
    // A token acts as its operator, and the automation routes all write: a viewer's token could do nothing.
    if (operator.disabled_at !== null)
      throw new UsageError(`operator "${username}" is disabled (\`operators enable ${username}\`)`);
    if (operator.role !== 'admin')
      throw new UsageError(
        `operator "${username}" is a viewer: operator tokens are issued under an admin (--operator)`,
      );
    const requested: TokenTenants = opts.allTenants ? ALL_TENANTS : [...new Set(named)];
    if (requested !== ALL_TENANTS) {
      const known = new Set((await s.tenants.list()).map((t) => t.slug));
      const unknown = requested.filter((slug) => !known.has(slug));
      if (unknown.length > 0) throw new UsageError(`no such clinic: ${unknown.join(', ')}${await clinicChoices(s)}`);
    }
    const clock = applianceClock();
    const started = { startedAt: clock.now(), startedPerf: performance.now() };
    const result = await new OperatorTokenStore(db, () => clock.now()).create({
      operatorId: operator.id,
      label,
      tenants: requested,
      expiresInDays: opts.expiresInDays,
      clone: opts.clone,
    });
    const { view } = result;
    await journalCliAction(db, {
      action: 'operator_token.create',
      command: `tokens create --label ${JSON.stringify(label)} ${requested === ALL_TENANTS ? '--all-tenants' : requested.map((t) => `--tenant ${t}`).join(' ')} --expires-in-days ${opts.expiresInDays}${opts.clone ? ' --clone' : ''}`,
      ...started,
      operatorId: operator.id,
      subject: { detail: issuedTokenDetail(view) },
    });
    return result;
  });
  if (opts.json) return print({ token: issued.token, ...issued.view });
  print(
    `id:         ${issued.view.id}\ntoken:      ${issued.token}\nclinics:    ${tenantsText(issued.view.tenants)}\nexpires_at: ${issued.view.expires_at}`,
  );
  info(
    'The token is shown only now: store it in your CI secrets. Use it as `Authorization: Bearer <token>`; revoke it with `tokens revoke <id>`.',
  );
}

/** A key's secret, shown once (create, rotate): as JSON with --json, else as lines and `note` on stderr. */
function showSecret(
  issued: { chave_id: number; api_key: string; api_secret: string },
  json: boolean | undefined,
  note: string,
): void {
  if (json) {
    print(JSON.stringify(issued));
    return;
  }
  print(`chave_id:   ${issued.chave_id}\napi_key:    ${issued.api_key}\napi_secret: ${issued.api_secret}`);
  info(note);
}

/** A group's `list`: every list prints a table, or with `--json` the rows as the admin API answers them. */
function listCommand(group: Command, description: string): Command {
  return group.command('list').description(description).option('--json', 'machine-readable output');
}

/** `tenants list | create | reset`. */
function addTenantCommands(program: Command): void {
  const tenants = program.command('tenants').description('clinics (tenants)');
  listCommand(tenants, 'every clinic: slug, name, sandbox or not, status, expiry (an ephemeral clinic)').action(
    async (opts: { json?: boolean }) => {
      const rows = await withServices((s) => s.tenants.list());
      if (opts.json) return print(rows);
      print(
        table(
          rows.map((t) => ({
            id: t.id,
            slug: t.slug,
            nome: t.nome,
            sandbox: t.is_sandbox ? 'yes' : 'no',
            status: t.status,
            criado: t.created_at,
            expira: t.expires_at ?? '-',
          })),
        ),
      );
    },
  );
  tenants
    .command('create')
    .description('register a clinic and have the running backend create its (empty) database')
    .argument('<slug>', 'lowercase letters, digits and hyphens')
    .option('--name <nome>', 'display name (default: the slug)')
    .option('--sandbox', 'public sandbox tenant: lower rate limit')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, opts: { name?: string; sandbox?: boolean; json?: boolean }) => {
      const { tenant, backendReady } = await withServices((s) =>
        s.tenants.create({ slug, nome: opts.name ?? slug, sandbox: opts.sandbox }),
      );
      if (!backendReady)
        info('note: backend-sim is not running; the clinic database will be created at the next `npm start`.');
      if (opts.json) return print(tenant);
      info(`tenant "${tenant.slug}" created (id ${tenant.id})`);
    });
  tenants
    .command('reset')
    .description(
      'put a clinic back to its first-start data (same ids, same rows) and forget its idempotency keys; keys stay valid, the journal is kept ' +
        'and records the reset. Refused with APP_ENV=production unless ALLOW_TENANT_RESET=true',
    )
    .argument('<slug>', 'the clinic')
    .addOption(new Option('--audit', AUDIT_FLAG_GONE).hideHelp())
    .option('--files', 'also delete the files uploaded for it')
    .option('--yes', 'do not ask for confirmation (scripts, CI)')
    .option('--json', 'machine-readable output')
    .action(resetCommand);
  // Issue 30: ephemeral clinics (appliance/cli/clones.ts).
  tenants
    .command('clone')
    .description(
      "a new clinic as a file copy of <from>'s first-start state (or of its --snapshot), with its own all-scopes key; " +
        'dropped by the appliance when --ttl ends. Refused with APP_ENV=production unless ALLOW_EPHEMERAL_CLINICS=true',
    )
    .argument('<from>', 'the template clinic')
    .option('--snapshot <name>', "one of the template's named snapshots instead of its first-start state")
    .option('--slug <slug>', "the clone's slug (default: <from>-<6 hex>)")
    .option('--ttl <duration>', 'time to live: 90s, 30m, 2h… (10s to 24h)', CLONE_TTL_DEFAULT)
    .option('--medico <id>', 'bind the key to this doctor', parseMedico)
    .option('--json', 'print {"slug", "api_key", "api_secret", "chave_id", "expires_at", ...}')
    .action(async (from: string, opts: Parameters<typeof cloneCommand>[3]) => {
      const result = await cliRefusal(() => withServices((s) => cloneCommand(s, applianceClock(), from, opts)));
      if (opts.json) return print(result);
      print(describeClone(result));
      info('The secret is shown only now. The clinic goes when its time to live ends (`tenants drop` sooner).');
    });
  tenants
    .command('drop')
    .description(
      'delete a clinic: its database, stored files, keys and idempotency entries (the journal keeps its entries). ' +
        'A permanent clinic asks to type its slug back. Refused with APP_ENV=production unless ALLOW_EPHEMERAL_CLINICS=true',
    )
    .argument('<slug>', 'the clinic')
    .option('--yes', 'do not ask for confirmation of a permanent clinic (scripts, CI)')
    .option('--json', 'machine-readable output')
    .action(async (slug: string, opts: Parameters<typeof dropCommand>[3]) => {
      const result = await cliRefusal(() => withServices((s) => dropCommand(s, applianceClock(), slug, opts)));
      if (opts.json) return print(result);
      info(describeDrop(result));
    });
  addSnapshotCommands(tenants, withServices);
}

/** A clone command's refusal printed as a usage error (its message, no stack). */
async function cliRefusal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CloneCliError) throw new UsageError(error.message);
    throw error;
  }
}

/** `keys list | create | update | rotate | revoke | import-legacy`. */
function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description('API keys');
  addListFilterOptions(listCommand(keys, "API keys, masked (never a secret); every clinic's unless --tenant"))
    .option('--tenant <slug>', 'only this tenant')
    .action(async (opts: { tenant?: string; json?: boolean } & ListFilterOptions) => {
      const filter = listFilter(opts);
      const filtering = Object.values(filter).some((v) => v !== undefined);
      const [rows, tenantList] = await withServices(async (s) => {
        const tenantList = await s.tenants.list();
        if (!filtering) return [await s.keys.list(opts.tenant), tenantList] as const;
        // The console API's search, clinic by clinic (doctor names are each clinic's own data).
        const slugs = opts.tenant ? [opts.tenant] : tenantList.map((t) => t.slug);
        const found = [];
        for (const slug of slugs) {
          const medicoIds = opts.tenant ? await doctorIdsMatching(s.backend, slug, filter.q) : [];
          found.push(...(await s.keys.search(slug, { ...filter, medicoIds })).keys);
        }
        return [found, tenantList] as const;
      });
      const slugOf = new Map(tenantList.map((t) => [t.id, t.slug]));
      if (opts.json) return print(rows.map((k) => ({ ...k, tenant: slugOf.get(k.tenant_id) ?? null })));
      print(
        table(
          rows.map((k) => ({
            id: k.id,
            ...(opts.tenant ? {} : { tenant: slugOf.get(k.tenant_id) ?? '?' }),
            key: k.api_key_masked,
            label: k.label || '-',
            status: k.status,
            medico: k.medico_id || '-',
            escopos: k.escopos.length === ALL_SCOPES.length ? 'all' : k.escopos.join(','),
            expires: expiryCell(k),
            last_used: k.last_used_at ?? '-',
          })),
        ),
      );
    });
  const create = keys
    .command('create')
    .description(
      'issue a key (its secret is shown once); --medico binds it to a doctor of that clinic; --expires-in-days or --expires-at makes it expire',
    )
    .requiredOption('--tenant <slug>', 'tenant of the key')
    .requiredOption('--scopes <list>', '"all", "read-only", "sandbox" or a comma list of scopes', parseScopeList)
    .option('--medico <id>', 'bind the key to a doctor (auto-filter)', parseMedico)
    .option('--label <text>', 'what the key is for')
    .option('--json', 'print only {"chave_id","api_key","api_secret"}');
  addExpiryOptions(create, { clear: false }).action(
    async (
      opts: { tenant: string; scopes: Scope[]; medico?: number; label?: string; json?: boolean } & ExpiryOptions,
    ) => {
      const issued = await withServices(async (s) => {
        await requireMedico(s, opts.tenant, opts.medico ?? 0);
        return s.keys.create({
          tenantSlug: opts.tenant,
          scopes: opts.scopes,
          medicoId: opts.medico,
          label: opts.label,
          ...expiryInput(opts),
        });
      });
      showSecret(
        issued,
        opts.json,
        'The secret is shown only now. Store it in a vault; it cannot be retrieved later (rotate to get a new one).',
      );
    },
  );
  addExpiryOptions(
    onId(
      keys,
      'update',
      "change a key's label, scopes, doctor or expiry (--no-expiry: never expires)",
      'key id (chave_id)',
    )
      .option('--label <text>', 'what the key is for')
      .option('--scopes <list>', '"all", "read-only", "sandbox" or a comma list of scopes', parseScopeList)
      .option('--medico <id>', 'bind the key to a doctor (0: unbind)', parseMedico)
      .option('--json', 'print the key as `keys list --json` shows it'),
    { clear: true },
  ).action(
    async (id: number, opts: { label?: string; scopes?: Scope[]; medico?: number; json?: boolean } & ExpiryOptions) => {
      const expiry = expiryInput(opts);
      if ([opts.label, opts.scopes, opts.medico, expiry.expiresAt, expiry.expiresInDays].every((v) => v === undefined))
        throw new UsageError(
          'nothing to change: give --label, --scopes, --medico, --expires-in-days, --expires-at or --no-expiry',
        );
      const key = await withServices(async (s) => {
        if (opts.medico !== undefined) {
          const current = await s.keys.get(id);
          const slug = (await s.tenants.list()).find((t) => t.id === current.tenant_id)?.slug ?? '';
          await requireMedico(s, slug, opts.medico);
        }
        return s.keys.update(id, { label: opts.label, scopes: opts.scopes, medicoId: opts.medico, ...expiry });
      });
      if (opts.json) return print(key);
      info(`key ${key.id} (${key.api_key_masked}) updated; expires: ${expiryCell(key)}`);
    },
  );
  onId(keys, 'rotate', 'new secret for a key (same api_key); the old secret fails at once', 'key id (chave_id)')
    .option('--json', 'print only {"chave_id","api_key","api_secret"}')
    .action(async (id: number, opts: { json?: boolean }) => {
      const issued = await withServices((s) => s.keys.rotate(id));
      showSecret(issued, opts.json, 'The previous secret no longer works. The new one is shown only now.');
    });
  onId(keys, 'revoke', 'revoke a key for good (its calls answer AUTH_KEY_REVOKED)', 'key id (chave_id)').action(
    async (id: number) => {
      const key = await withServices((s) => s.keys.revoke(id));
      info(`key ${key.id} (${key.api_key_masked}) revoked`);
    },
  );
  keys
    .command('import-legacy')
    .description(
      'register a key of the legacy system whose secret cannot be carried over (answers AUTH_KEY_LEGACY until rotated)',
    )
    .requiredOption('--tenant <slug>', 'tenant of the key')
    .requiredOption('--key <api_key>', 'the legacy public key identifier')
    .requiredOption('--scopes <list>', 'scopes', parseScopeList)
    .action(async (opts: { tenant: string; key: string; scopes: Scope[] }) => {
      const id = await withServices((s) =>
        s.keys.importLegacy({ tenantSlug: opts.tenant, apiKey: opts.key, scopes: opts.scopes }),
      );
      info(`legacy key registered with id ${id}; rotate it to issue a usable secret`);
    });
}

/** `tokens create | list | revoke`: operator API tokens. */
function addTokenCommands(program: Command): void {
  const tokens = program
    .command('tokens')
    .description(
      'operator API tokens for the automation routes (POST /admin/api/automation/tenants/<slug>/reset), bound to clinics, with an expiry',
    );
  tokens
    .command('create')
    .description(
      `issue a token (shown once) for named clinics, or all of them when asked for; it expires after --expires-in-days`,
    )
    .requiredOption('--label <text>', 'what the token is for, e.g. "Playwright suite - CI"')
    .option('--tenant <slug>', 'a clinic the token may reset; repeat for more', collect)
    .option('--all-tenants', 'every clinic, present and future (the admin API\'s "*"): only when that is what you mean')
    .option(
      '--expires-in-days <n>',
      `validity in days, at most ${OPERATOR_TOKEN_MAX_DAYS}`,
      parseDays,
      OPERATOR_TOKEN_DEFAULT_DAYS,
    )
    .option(
      '--operator <username>',
      'the operator it is issued under and audited as (default: OPERATOR_USERNAME, "admin")',
    )
    .option('--clone', 'may also create ephemeral clinics from its clinics (and then acts on those): issue 30')
    .option('--json', 'print {"token", "id", "tenants", "expires_at", ...} (the admin API\'s answer)')
    .action(createTokenCommand);
  listCommand(
    tokens,
    'operator tokens (never the token itself): clinics, expiry and status (active, expired, revoked)',
  ).action(async (opts: { json?: boolean }) => {
    const clock = applianceClock();
    const rows = await withServices((s) => new OperatorTokenStore(s.gatewayDb.db, () => clock.now()).list());
    if (opts.json) return print(rows);
    print(
      table(
        rows.map((t: OperatorTokenView) => ({
          id: t.id,
          label: t.label,
          token: t.prefix,
          clinics: tenantsText(t.tenants),
          status: t.status,
          clone: t.clone ? 'yes' : 'no',
          expires_at: t.expires_at,
          last_used: t.last_used_at ?? '-',
          operator: t.operator ?? '-',
        })),
      ),
    );
  });
  onId(tokens, 'revoke', 'revoke a token for good (its calls answer 401 at once)', 'token id (tokens list)')
    .option('--json', 'machine-readable output')
    .action(async (id: number, opts: { json?: boolean }) => {
      const clock = applianceClock();
      const view = await withServices(async (s) => {
        const started = { startedAt: clock.now(), startedPerf: performance.now() };
        const store = new OperatorTokenStore(s.gatewayDb.db, () => clock.now());
        const revoked = await store.revoke(id).catch(async (error: unknown) => {
          if (error instanceof ApiError && error.code === 'RES_NOT_FOUND') {
            const ids = (await store.list()).map((t) => `${t.id} (${t.label}, ${t.status})`);
            throw new UsageError(
              `operator token ${id} does not exist; ${ids.length ? `tokens: ${listed(ids)} (see \`tokens list\`)` : 'there is no token yet (`tokens create`)'}`,
            );
          }
          throw error;
        });
        await journalCliAction(s.gatewayDb.db, {
          action: 'operator_token.revoke',
          command: `tokens revoke ${id}`,
          ...started,
          subject: { detail: { token_id: id } },
        });
        return revoked;
      });
      if (opts.json) return print(view);
      info(`operator token ${view.id} (${view.prefix}) revoked`);
    });
}

export function buildCli(): Command {
  const program = new Command('cli')
    .description('Clinic Exams Gateway operator CLI (acts on DATA_DIR, default ./data)')
    .version(API_RELEASE, '-V, --version', 'the appliance release')
    .exitOverride()
    .showHelpAfterError()
    .hook('preAction', (_program, command) => requireAppliance(command));
  addTenantCommands(program);
  addKeyCommands(program);
  addTokenCommands(program);
  addClockCommands(program);
  addOperatorCommands(program);
  addDatabaseCommands(program);
  addJournalPruneCommand(program);
  addProxyCommands(program);
  addJournalCommands(program, {
    withServices,
    print,
    info,
    usage: (message) => new UsageError(message),
    now: () => applianceClock().now(),
  });
  addStatsCommands(program, {
    withServices,
    print,
    info,
    usage: (message) => new UsageError(message),
    now: () => applianceClock().now(),
  });
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
    if (
      error instanceof KeyServiceError ||
      error instanceof TenantServiceError ||
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof CopyRefused
    ) {
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
