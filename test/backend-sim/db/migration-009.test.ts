import SQLite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openTenantDatabase } from '../../../backend-sim/db/database.ts';
import { applySearchQueue, SEARCH_QUEUE_APPLY } from '../../../backend-sim/db/derived.ts';
import { recordedOutcome, WriteScope } from '../../../backend-sim/db/idempotent-dialect.ts';
import { migrations } from '../../../backend-sim/db/migrations/index.ts';

// Migration 2026-11-24-009 (issue 25): markers appended in a rowid table, and the search queue applied by id.
const MIGRATION = '2026-11-24-009-append-only-markers-and-queue-by-id';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempFile = () => {
  const d = mkdtempSync(join(tmpdir(), 'migration-009-test-'));
  dirs.push(d);
  return join(d, 'tenant.db');
};
const token = (n: number) => createHash('sha256').update(`marker ${n}`).digest('hex');
const NOW = Date.parse('2026-11-24T12:00:00Z');

describe(`migration ${MIGRATION}`, () => {
  it('keeps the markers an existing tenant holds: each still replays its answer, and a new write records beside them', async () => {
    const file = tempFile();
    const before = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(file) }) });
    const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < MIGRATION));
    const { error } = await new Migrator({
      db: before,
      provider: { getMigrations: async () => earlier },
    }).migrateToLatest();
    if (error) throw error;
    const old = Array.from({ length: 20 }, (_, i) => ({
      token: token(i),
      method: 'POST',
      path: `/tenants/t/pacientes`,
      status: 201,
      content_type: 'application/json',
      response: `{"n":${i}}`,
      created_at: NOW - i,
    }));
    await before.insertInto('idempotency_markers').values(old).execute();
    await before.destroy();

    const t = await openTenantDatabase(file, { create: false });
    try {
      for (const m of old)
        expect(recordedOutcome(t.sqlite, m.token, NOW)).toEqual({
          method: m.method,
          path: m.path,
          status: 201,
          content_type: m.content_type,
          response: m.response,
        });
      const scope = new WriteScope(token(100), 'POST', '/tenants/t/estados', () => NOW);
      await scope.run(() => t.db.insertInto('estados_civis').values({ nome: 'Depois da migracao' }).execute());
      scope.finish({ status: 201, contentType: 'application/json', body: '{"novo":1}' });
      expect(recordedOutcome(t.sqlite, token(100), NOW)?.response).toBe('{"novo":1}');
      // The token stays unique.
      expect(() =>
        t.sqlite
          .prepare("INSERT INTO idempotency_markers (token, method, path, created_at) VALUES (?, 'POST', '/x', 1)")
          .run(token(3)),
      ).toThrow(/UNIQUE/);
    } finally {
      await t.close();
    }
  });

  it('a marker with a 1 KB answer is stored on the table pages (no overflow page per marker)', async () => {
    const t = await openTenantDatabase(tempFile(), { create: true });
    try {
      const answer = JSON.stringify({ data: { nome: 'X'.repeat(1000) }, meta: {} });
      for (let i = 0; i < 40; i++) {
        const scope = new WriteScope(token(i), 'POST', '/tenants/t/estados', () => NOW);
        await scope.run(() =>
          t.db
            .insertInto('estados_civis')
            .values({ nome: `Estado ${i}` })
            .execute(),
        );
        scope.finish({ status: 201, contentType: 'application/json', body: answer });
      }
      const pages = t.sqlite
        .prepare("SELECT pagetype, COUNT(*) AS n FROM dbstat WHERE name = 'idempotency_markers' GROUP BY pagetype")
        .all() as { pagetype: string; n: number }[];
      expect(pages.find((p) => p.pagetype === 'overflow')).toBeUndefined();
      expect(t.sqlite.prepare('SELECT COUNT(*) FROM idempotency_markers WHERE response = ?').pluck().get(answer)).toBe(
        40,
      );
    } finally {
      await t.close();
    }
  });

  it('the search queue is applied by the queued ids, never by scanning the patients, on an analyzed tenant too', async () => {
    const t = await openTenantDatabase(tempFile(), { create: true });
    try {
      const s = t.sqlite;
      const paciente = s.prepare(
        "INSERT INTO pacientes (nome, numero_prontuario, usuario, senha_hash, criado_em) VALUES (?, ?, ?, 'x', 'c')",
      );
      s.transaction(() => {
        for (let i = 0; i < 3000; i++) paciente.run(`PACIENTE ${i}`, `n${i}`, `u${i}`);
      })();
      applySearchQueue(s);
      // Statistics taken with the queue empty, as on a seeded tenant: the queue then looks large to the planner.
      s.exec('ANALYZE');
      const plan = (sql: string) =>
        (s.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
      // What the plain join did: scan the patients.
      expect(plan('SELECT p.id, p.nome FROM pacientes_nome_busca_fila f JOIN pacientes p ON p.id = f.id')).toContain(
        'SCAN p',
      );
      const trigger = s
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'pacientes_nome_busca_fila_cheia'")
        .pluck()
        .get() as string;
      const triggerBody = trigger
        .slice(trigger.indexOf(' BEGIN ') + 7, trigger.lastIndexOf('END'))
        .split(';')
        .map((x) => x.trim())
        .filter(Boolean);
      expect(triggerBody).toHaveLength(3);
      for (const statement of [...SEARCH_QUEUE_APPLY, ...triggerBody]) {
        const details = plan(statement);
        expect(
          details.filter((d) => /^SCAN (p|pacientes)\b/.test(d)),
          statement,
        ).toEqual([]);
        if (statement.includes('JOIN pacientes p'))
          expect(details, statement).toContain('SEARCH p USING INTEGER PRIMARY KEY (rowid=?)');
      }
      // And it still does its work: the 64th queued name reaches the index through the trigger.
      for (let i = 0; i < 64; i++) paciente.run(`NOVO ${i}`, `m${i}`, `v${i}`);
      expect(s.prepare('SELECT COUNT(*) FROM pacientes_nome_busca_fila').pluck().get()).toBe(0);
      expect(
        s.prepare(`SELECT COUNT(*) FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH '"NOVO"'`).pluck().get(),
      ).toBe(64);
    } finally {
      await t.close();
    }
  });
});
