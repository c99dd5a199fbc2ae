import { InvalidArgumentError, type Command } from 'commander';
import { loadApplianceConfig } from '../gateway-config.ts';
import { ApplianceClock } from '../../server/clock.ts';
import type { DbOrTrx } from '../../server/db/database.ts';
import { ApiError } from '../../server/errors.ts';
import {
  createOperator,
  findOperator,
  listOperators,
  resetOperatorPassword,
  updateOperator,
  type OperatorRefusal,
} from '../../server/operators/index.ts';
import {
  OPERATOR_ROLES,
  OPERATOR_USERNAME_REGEX,
  type OperatorRole,
  type OperatorView,
} from '../../contracts/admin/operators.ts';
import { journalCliAction } from './journal.ts';

const out = (text: string): void => void process.stdout.write(`${text}\n`);
const info = (text: string): void => void process.stderr.write(`${text}\n`);

function parseRole(value: string): OperatorRole {
  if (!(OPERATOR_ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(
      `use one of: ${OPERATOR_ROLES.join(', ')} (admin: everything; viewer: read-only, no secrets, no writes)`,
    );
  }
  return value as OperatorRole;
}

function parseUsername(value: string): string {
  if (!OPERATOR_USERNAME_REGEX.test(value))
    throw new InvalidArgumentError('1-64 lowercase letters, digits, ".", "-" or "_", starting with a letter or digit');
  return value;
}

/** The gateway database of DATA_DIR and the appliance clock (operator tokens' times follow it). */
async function withDb<T>(work: (db: DbOrTrx, at: { now: string; applianceNow: string }) => Promise<T>): Promise<T> {
  const config = loadApplianceConfig();
  const clock = new ApplianceClock({ dataDir: config.dataDir, enabled: config.appEnv === 'development' });
  // Loaded when a command runs: `--help` does not open the database.
  const { openGatewayDatabase } = await import('../../server/db/gateway-database.ts');
  const opened = await openGatewayDatabase(config);
  try {
    return await work(opened.db, { now: new Date().toISOString(), applianceNow: new Date(clock.now()).toISOString() });
  } finally {
    await opened.close();
  }
}

/** The service's refusals (Portuguese, for the console API) in the CLI's English, naming what exists. */
async function explain(error: unknown, db: DbOrTrx, username: string): Promise<unknown> {
  if (!(error instanceof ApiError)) return error;
  const motivo = (error.details as { motivo?: OperatorRefusal } | null)?.motivo;
  if (motivo === 'unknown_operator') {
    const names = (await db.selectFrom('operators').select('username').orderBy('username').execute()).map(
      (o) => o.username,
    );
    return new Error(
      `operator "${username}" does not exist; operators: ${names.join(', ') || '(none yet: `npm start` creates the first)'} (see \`operators list\`)`,
    );
  }
  if (motivo === 'username_taken')
    return new Error(`operator "${username}" already exists (reset its password with \`operators reset ${username}\`)`);
  if (motivo === 'last_admin') {
    return new Error(
      `"${username}" is the last active admin: make another operator admin first (\`operators role <username> admin\`)`,
    );
  }
  return error;
}

/**
 * `operators list | add | disable | enable | role | reset` (issue 22 § 6) on DATA_DIR's gateway.db: the
 * same rules as the console's Operators screen (the last active admin cannot be disabled or demoted;
 * disabling ends the operator's sessions and revokes its tokens; a reset ends its sessions). Each change
 * is journaled as the console journals it, with `via: "cli"`. Generated passwords are printed once.
 */
export function addOperatorCommands(program: Command): void {
  const operators = program
    .command('operators')
    .description('console operator accounts: roles admin (everything) and viewer (read-only)');

  /** Runs one change on an operator, journaled with its outcome (a refusal too: someone tried). */
  const change = async <T>(
    action: string,
    command: string,
    username: string,
    work: (db: DbOrTrx, at: { now: string; applianceNow: string }) => Promise<T & { detail: Record<string, unknown> }>,
  ) =>
    withDb(async (db, at) => {
      const started = { startedAt: Date.parse(at.applianceNow), startedPerf: performance.now() };
      try {
        const result = await work(db, at);
        await journalCliAction(db, {
          action,
          command,
          ...started,
          subject: { detail: { username, ...result.detail } },
        });
        return result;
      } catch (error) {
        await journalCliAction(db, { action, command, ...started, subject: { detail: { username } }, error }).catch(
          () => undefined,
        );
        throw await explain(error, db, username);
      }
    });

  const describe = (o: OperatorView) => `${o.username} (${o.role}, ${o.status})`;

  operators
    .command('list')
    .description('every operator: role, status, live sessions, active tokens (never a password)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const rows = await withDb((db, at) => listOperators(db, at));
      if (opts.json) return out(JSON.stringify(rows, null, 2));
      const table = rows.map((o) => ({
        id: String(o.id),
        username: o.username,
        role: o.role,
        status: o.status,
        sessions: String(o.sessions),
        tokens: String(o.tokens),
        created: o.created_at,
      }));
      if (table.length === 0) return out('(none)');
      const cols = Object.keys(table[0]) as Array<keyof (typeof table)[number]>;
      const widths = cols.map((c) => Math.max(c.length, ...table.map((r) => r[c].length)));
      const line = (values: string[]) =>
        values
          .map((v, i) => v.padEnd(widths[i]))
          .join('  ')
          .trimEnd();
      out(
        [line(cols), line(widths.map((w) => '-'.repeat(w))), ...table.map((r) => line(cols.map((c) => r[c])))].join(
          '\n',
        ),
      );
    });

  operators
    .command('add')
    .description('create an operator with a generated password, printed once')
    .argument('<username>', 'lowercase letters, digits, ".", "-", "_"', parseUsername)
    .requiredOption(
      '--role <role>',
      'admin (everything) or viewer (read-only: journal, keys list, no secrets, no writes)',
      parseRole,
    )
    .option('--json', 'print {"operator", "password"}')
    .action(async (username: string, opts: { role: OperatorRole; json?: boolean }) => {
      const created = await change(
        'operator.create',
        `operators add ${username} --role ${opts.role}`,
        username,
        async (db, at) => {
          const result = await createOperator(db, { username, role: opts.role }, at);
          return { ...result, detail: { operator_id: result.operator.id, role: opts.role } };
        },
      );
      if (opts.json) return out(JSON.stringify({ operator: created.operator, password: created.password }));
      out(`username: ${created.operator.username}\nrole:     ${created.operator.role}\npassword: ${created.password}`);
      info('The password is shown only now. The operator can change it in the console (Operators → Change password).');
    });

  /**
   * One change of an operator's role or status (`disable`, `enable`, `role`), journaled with what it was and what
   * it is; prints the operator (as JSON with --json) and what else the change did (`also`: its journal detail and words).
   */
  const update = async (
    username: string,
    command: string,
    patch: { role?: OperatorRole; disabled?: boolean },
    json: boolean | undefined,
    also: (result: Awaited<ReturnType<typeof updateOperator>>) => {
      detail: Record<string, unknown>;
      words: string;
    } = () => ({ detail: {}, words: '' }),
  ) => {
    const updated = await change('operator.update', command, username, async (db, at) => {
      const target = await findOperator(db, { username });
      const result = await updateOperator(db, target.id, patch, at);
      const depois = { role: result.operator.role, disabled: result.operator.status === 'disabled' };
      return { ...result, detail: { operator_id: target.id, antes: result.before, depois, ...also(result).detail } };
    });
    if (json) return out(JSON.stringify(updated.operator, null, 2));
    info(`operator ${describe(updated.operator)}${also(updated).words}`);
  };

  operators
    .command('disable')
    .description(
      'disable an operator: no sign-in, its sessions end and its operator tokens are revoked (not the last active admin)',
    )
    .argument('<username>', 'the operator')
    .option('--json', 'machine-readable output')
    .action((username: string, opts: { json?: boolean }) =>
      update(username, `operators disable ${username}`, { disabled: true }, opts.json, (r) => ({
        detail: { sessions_ended: r.sessionsEnded, tokens_revoked: r.tokensRevoked },
        words: `: ${r.sessionsEnded} session(s) ended, ${r.tokensRevoked} operator token(s) revoked`,
      })),
    );

  operators
    .command('enable')
    .description('enable a disabled operator again (its revoked tokens stay revoked)')
    .argument('<username>', 'the operator')
    .option('--json', 'machine-readable output')
    .action((username: string, opts: { json?: boolean }) =>
      update(username, `operators enable ${username}`, { disabled: false }, opts.json),
    );

  operators
    .command('role')
    .description(
      'make an operator admin or viewer (the last active admin cannot be demoted); live sessions follow at once',
    )
    .argument('<username>', 'the operator')
    .argument('<role>', 'admin or viewer', parseRole)
    .option('--json', 'machine-readable output')
    .action((username: string, role: OperatorRole, opts: { json?: boolean }) =>
      update(username, `operators role ${username} ${role}`, { role }, opts.json),
    );

  operators
    .command('reset')
    .description(
      'give an operator a new generated password (printed once), end its sessions and lift its sign-in locks',
    )
    .argument('<username>', 'the operator')
    .option('--json', 'print {"operator", "password"}')
    .action(async (username: string, opts: { json?: boolean }) => {
      const reset = await change('operator.password.reset', `operators reset ${username}`, username, async (db, at) => {
        const target = await findOperator(db, { username });
        const result = await resetOperatorPassword(db, target.id, at);
        return { ...result, detail: { operator_id: target.id, sessions_ended: result.sessionsEnded } };
      });
      if (opts.json) return out(JSON.stringify({ operator: reset.operator, password: reset.password }));
      out(`username: ${reset.operator.username}\npassword: ${reset.password}`);
      info(`The password is shown only now; ${reset.sessionsEnded} session(s) ended.`);
    });
}
