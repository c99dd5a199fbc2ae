import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { DbOrTrx } from '../../server/db/database.ts';
import { ApiError } from '../../server/errors.ts';
import {
  buildConsoleAuditEntry,
  insertConsoleAudit,
  type ConsoleActionSubject,
} from '../../server/audit/console-audit.ts';

/** Who ran the command, as far as the machine knows (the CLI has no operator session). */
function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

export interface CliAction {
  /** The console's action name for the same thing: `tenant.reset`, `operator_token.create`… */
  action: string;
  /** The command as typed, without secrets: stored as the entry's path. */
  command: string;
  /** Appliance time the command started at (epoch ms). */
  startedAt: number;
  startedPerf: number;
  operatorId?: number | null;
  subject?: ConsoleActionSubject;
  /** The failure, when the command failed. */
  error?: unknown;
}

/**
 * The CLI acts on DATA_DIR directly, so no request carries its actions to the journal: each of its
 * changes to clinics and operator tokens writes the entry the console writes for the same action, with
 * method `CLI`, the command as path and `via: "cli"` (and the OS user) in its detail. Outcomes are
 * journaled as the console journals them: a failure with its status and code.
 */
export async function journalCliAction(db: DbOrTrx, input: CliAction): Promise<void> {
  const error = input.error;
  const status = error === undefined ? 200 : error instanceof ApiError ? error.status : 500;
  const errorCode = error === undefined ? null : error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
  const entry = buildConsoleAuditEntry({
    requestId: randomUUID(),
    action: input.action,
    operatorId: input.operatorId ?? null,
    method: 'CLI',
    path: input.command,
    status,
    errorCode,
    durationMs: performance.now() - input.startedPerf,
    clientIp: 'cli',
    subject: { ...input.subject, detail: { via: 'cli', os_user: osUser(), ...input.subject?.detail } },
    at: new Date(input.startedAt),
  });
  await insertConsoleAudit(db)(entry);
}
