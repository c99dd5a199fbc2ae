import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// Operator API tokens (issue 13): automation (QA's beforeEach) calls the console API's /automation routes
// with `Authorization: Bearer <token>` instead of a session and CSRF. Only a SHA-256 of the token is kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operator_tokens')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('label', 'text', (c) => c.notNull())
    // SHA-256 (hex) of the whole token: a leaked database does not hand out working tokens.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    // `ce_op_` and the token's first 4 random characters, to recognise it in the list.
    .addColumn('token_prefix', 'text', (c) => c.notNull())
    .addColumn('operator_id', 'integer', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
}
