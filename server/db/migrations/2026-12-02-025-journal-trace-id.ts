import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Issue 31 § OpenTelemetry traces, on both databases: audit_log.trace_id, the 32 lowercase hex digits of the W3C
// trace the request belongs to (its request span's when tracing is on; a valid incoming `traceparent`'s when it is
// off), null when there is none. Text on both: the same column type the journal's other ids have. No index: it is
// read with its entry, and searching the journal by trace id is left to the tracing backend that holds the trace.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('trace_id', 'text').execute();
}
