import { z } from 'zod';
import { tenantField } from './common.ts';

/**
 * `POST /journal/prune` (and its automation twin `POST /automation/journal/prune`): removes the journal's entries
 * older than `before`, all clinics' or one clinic's (development mode only; docs/decisions.md § P). `dry_run`
 * answers how many would go and removes nothing (the console's confirmation).
 */
export const journalPruneSchema = z
  .object({
    /** ISO 8601 instant (appliance time, like the entries' `ts`): entries strictly older go. */
    before: z.iso.datetime({ offset: true, local: false, message: 'Data invalida (ISO 8601).' }),
    /** One clinic's entries only (its slug as the journal keeps it: a dropped clinic's entries too). */
    tenant: tenantField.optional(),
    dry_run: z.boolean().default(false),
  })
  .strict();
export type JournalPruneInput = z.input<typeof journalPruneSchema>;

/** What a prune removed (or, with `dry_run`, would remove). */
export const journalPruneResult = z.object({
  /** Entries and unattributed groups together. */
  removed: z.number().int(),
  /** Entries of audit_log (verified and unverified). */
  entries: z.number().int(),
  /** Unattributed groups (requests that named no key); never with `tenant`, they belong to no clinic. */
  unattributed_groups: z.number().int(),
  /** `before` as an ISO instant in UTC. */
  before: z.string(),
  tenant: z.string().nullable(),
  dry_run: z.boolean(),
});
export type JournalPruneResult = z.infer<typeof journalPruneResult>;

/** The action name on every surface: the console's journal entry, the CLI's, the automation route's. */
export const JOURNAL_PRUNE_ACTION = 'journal.prune';
