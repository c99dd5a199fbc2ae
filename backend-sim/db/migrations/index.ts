import type { Migration } from 'kysely';
import { migration as m001 } from './2026-11-21-001-initial.ts';
import { migration as m002 } from './2026-11-21-002-list-indexes.ts';
import { migration as m003 } from './2026-11-21-003-central-laudos.ts';
import { migration as m004 } from './2026-11-22-004-idempotency-markers.ts';
import { migration as m005 } from './2026-11-23-005-list-counts-and-search.ts';
import { migration as m006 } from './2026-11-23-006-laudos-counts.ts';
import { migration as m007 } from './2026-11-23-007-search-index-queue.ts';
import { migration as m008 } from './2026-11-23-008-exames-status-counts.ts';
import { migration as m009 } from './2026-11-24-009-append-only-markers-and-queue-by-id.ts';

/** Date-prefixed, applied in name order by Kysely's Migrator. */
export const migrations: Record<string, Migration> = {
  '2026-11-21-001-initial': m001,
  '2026-11-21-002-list-indexes': m002,
  '2026-11-21-003-central-laudos': m003,
  '2026-11-22-004-idempotency-markers': m004,
  '2026-11-23-005-list-counts-and-search': m005,
  '2026-11-23-006-laudos-counts': m006,
  '2026-11-23-007-search-index-queue': m007,
  '2026-11-23-008-exames-status-counts': m008,
  '2026-11-24-009-append-only-markers-and-queue-by-id': m009,
};
