import type { Migration } from 'kysely';
import * as m001 from './2026-11-21-001-tenants-keys-operators.ts';

/** Date-prefixed, applied in name order by Kysely's Migrator. */
export const migrations: Record<string, Migration> = {
  '2026-11-21-001-tenants-keys-operators': m001,
};
