import { InvalidArgumentError, Option, type Command } from 'commander';
import { ALL_SCOPES, isScope, type Scope } from '../../contracts/scopes.ts';
import { KEY_EXPIRING_SOON_DAYS, KEY_EXPIRY_MAX_DAYS, KEY_STATUS_FILTERS } from '../../contracts/admin/keys.ts';
import type { ExpiryInput, KeyListFilter, KeySummary } from '../../server/keys/keys.service.ts';

/**
 * The keys commands' expiry and list-filter options (issue 31 § 3 and § 4), with the console API's names:
 * `--expires-in-days` / `--expires-at` (and `--no-expiry` on `keys update`), `--search`, `--scope`, `--status`,
 * `--expiring`. Whether an expiry lies in the future (at most 5 years) is the key service's check, by DATA_DIR's
 * appliance clock.
 */

function parseExpiryDays(value: string): number {
  const days = /^[1-9]\d*$/.test(value) ? Number(value) : Number.NaN;
  if (!(days <= KEY_EXPIRY_MAX_DAYS))
    throw new InvalidArgumentError(`must be a whole number of days from 1 to ${KEY_EXPIRY_MAX_DAYS} (5 years)`);
  return days;
}

function parseExpiresAt(value: string): string {
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) ||
    Number.isNaN(Date.parse(value))
  )
    throw new InvalidArgumentError('must be an ISO 8601 date-time with a zone, e.g. 2027-01-31T18:00:00Z');
  return value;
}

export interface ExpiryOptions {
  expiresInDays?: number;
  expiresAt?: string;
  /** commander's `--no-expiry`: false when given. */
  expiry?: boolean;
}

/** `--expires-in-days <n>` and `--expires-at <time>`, one or the other; `keys update` adds `--no-expiry`. */
export function addExpiryOptions(command: Command, options: { clear: boolean }): Command {
  command
    .addOption(
      new Option(
        '--expires-in-days <n>',
        `the key stops working n days from now (appliance time), 1 to ${KEY_EXPIRY_MAX_DAYS}`,
      )
        .argParser(parseExpiryDays)
        .conflicts(['expiresAt', ...(options.clear ? ['expiry'] : [])]),
    )
    .addOption(
      new Option('--expires-at <time>', 'the key stops working at this ISO 8601 date-time (e.g. 2027-01-31T18:00:00Z)')
        .argParser(parseExpiresAt)
        .conflicts(options.clear ? ['expiry'] : []),
    );
  if (options.clear)
    command.addOption(new Option('--no-expiry', 'the key never expires (removes its expiry)').conflicts(['expiresAt']));
  return command;
}

/** What the key service is asked: undefined fields change nothing, `expiresAt: null` clears. */
export function expiryInput(opts: ExpiryOptions): ExpiryInput {
  if (opts.expiry === false) return { expiresAt: null };
  return { expiresAt: opts.expiresAt, expiresInDays: opts.expiresInDays };
}

function parseScope(value: string): Scope {
  if (!isScope(value)) throw new InvalidArgumentError(`unknown scope; one of: ${ALL_SCOPES.join(', ')}`);
  return value;
}

function parseStatus(value: string): KeyListFilter['status'] {
  if (!(KEY_STATUS_FILTERS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`one of: ${KEY_STATUS_FILTERS.join(', ')} (current: every key not revoked)`);
  return value as KeyListFilter['status'];
}

export interface ListFilterOptions {
  search?: string;
  scope?: Scope;
  status?: KeyListFilter['status'];
  /** `--expiring` alone: 7 days. */
  expiring?: number | true;
}

/** `keys list`'s filters, the console's (search box, scope, status, "expiring within 7 days"). */
export function addListFilterOptions(command: Command): Command {
  return command
    .option('--search <text>', 'label, key prefix (ce_live_…), key id (#7) or doctor (id, or name with --tenant)')
    .option('--scope <scope>', 'only keys holding this scope', parseScope)
    .option('--status <status>', `${KEY_STATUS_FILTERS.join(' | ')} (expired: past its expiry)`, parseStatus)
    .option(
      '--expiring [days]',
      `only active keys expiring within that many days (default ${KEY_EXPIRING_SOON_DAYS})`,
      parseExpiryDays,
    );
}

export function listFilter(opts: ListFilterOptions): KeyListFilter {
  return {
    q: opts.search,
    scope: opts.scope,
    status: opts.status,
    expiring: opts.expiring === true ? KEY_EXPIRING_SOON_DAYS : opts.expiring,
  };
}

/** The table's expiry cell: `-` for never, the time, `(expired)` once past it. */
export const expiryCell = (k: Pick<KeySummary, 'expires_at' | 'expired'>): string =>
  k.expires_at === null ? '-' : `${k.expires_at}${k.expired ? ' (expired)' : ''}`;
