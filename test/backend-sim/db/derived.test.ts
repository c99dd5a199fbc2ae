import SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openTenantDatabase } from '../../../backend-sim/db/database.ts';
import { migrations } from '../../../backend-sim/db/migrations/index.ts';
import { applySearchQueue } from '../../../backend-sim/db/derived.ts';
import { derivedMismatches } from '../helpers.ts';

// Migrations 2026-11-23-005 to -008: the trigram search index of patient names and the list counts are filled
// from the rows an existing tenant already has, and triggers keep them right through every write.
const LATEST = '2026-11-23-005-list-counts-and-search';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempFile = () => {
  const d = mkdtempSync(join(tmpdir(), 'derived-test-'));
  dirs.push(d);
  return join(d, 'tenant.db');
};

/** A tenant database as the version before the migration left it. */
async function databaseBefore(file: string) {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(file) }) });
  const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < LATEST));
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => earlier } }).migrateToLatest();
  if (error) throw error;
  await db.destroy();
}

const names = [
  'JOÃO DA SILVA',
  'MARIA SILVANA',
  'ANA SILVA-COSTA',
  'CONCEIÇÃO ARAÚJO',
  '"ASPAS" NEAR(X)',
  'ANA',
  'minúscula silva',
  'ÁGATA ÑANDU',
];

/** Rows written with plain SQL: patients (some inactive), doctors, exams with doctors in several roles, some deleted. */
function fill(sqlite: SQLite.Database, start = 0) {
  sqlite.prepare("INSERT OR IGNORE INTO procedimentos (id, nome) VALUES (1, 'Raio X'), (2, 'Ultrassom')").run();
  sqlite
    .prepare(
      "INSERT OR IGNORE INTO medicos (id, nome, usuario, senha_hash, criado_em) VALUES (1, 'A', 'a', 'x', 'c'), (2, 'B', 'b', 'x', 'c'), (3, 'C', 'c', 'x', 'c')",
    )
    .run();
  const paciente = sqlite.prepare(
    "INSERT INTO pacientes (nome, numero_prontuario, usuario, senha_hash, ativo, criado_em) VALUES (?, ?, ?, 'x', ?, '2026-01-01T00:00:00Z')",
  );
  names.forEach((nome, i) => {
    paciente.run(nome, `n${start + i}`, `u${start + i}`, i % 3 ? 1 : 0);
  });
  const exame = sqlite.prepare(
    "INSERT INTO exames (paciente_id, procedimento_id, medico_exame_id, medico_laudo_id, medico_solicitante_id, data_realizado, excluido_em, criado_em) VALUES (1, ?, ?, ?, ?, ?, ?, 'c')",
  );
  for (let i = 0; i < 60; i++)
    exame.run(
      1 + (i % 2),
      1 + (i % 3),
      i % 4 ? 1 + (i % 2) : null,
      i % 5 ? null : 1 + (i % 3),
      `2026-0${1 + (i % 3)}-1${i % 7}`,
      i % 11 ? null : '2026-05-05',
    );
  const laudo = sqlite.prepare(
    "INSERT INTO laudos (exame_id, medico_laudo_id, data_laudo, assinado, excluido_em, criado_em) VALUES (?, ?, ?, ?, ?, 'c')",
  );
  for (let i = 0; i < 40; i++)
    laudo.run(
      i % 9 ? 1 + i : null,
      i % 6 ? 1 + (i % 3) : null,
      `2026-0${1 + (i % 4)}-0${1 + (i % 5)}`,
      i % 3 ? 1 : 0,
      i % 13 ? null : '2026-05-05',
    );
}

const search = (sqlite: SQLite.Database, needle: string) =>
  sqlite
    .prepare('SELECT rowid FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH ? ORDER BY rowid')
    .pluck()
    .all(`"${needle}"`);
const scan = (sqlite: SQLite.Database, needle: string) =>
  sqlite.prepare('SELECT id FROM pacientes WHERE instr(nome, ?) > 0 ORDER BY id').pluck().all(needle);

describe('migrations 2026-11-23-005 to 008 (search index, its queue, list counts)', () => {
  it('upgrades an existing database: the index and the counts hold its rows', async () => {
    const file = tempFile();
    await databaseBefore(file);
    const raw = new SQLite(file);
    fill(raw);
    raw.close();
    const t = await openTenantDatabase(file, { create: false });
    try {
      expect(t.sqlite.prepare('SELECT name FROM kysely_migration WHERE name = ?').pluck().get(LATEST)).toBe(LATEST);
      expect(derivedMismatches(t.sqlite)).toEqual([]);
      expect(t.sqlite.prepare('SELECT SUM(n) FROM exames_contagem WHERE filtro = ?').pluck().get('todos')).toBe(54);
      for (const needle of ['SILVA', 'ANA', 'ÇÃO', '"ASPAS"', 'NEAR(', 'silva', 'A S'])
        expect(search(t.sqlite, needle), needle).toEqual(scan(t.sqlite, needle));
    } finally {
      await t.close();
    }
  });

  it('triggers keep the index and the counts right through inserts, updates and deletes (including from another connection)', async () => {
    const file = tempFile();
    const t = await openTenantDatabase(file, { create: true });
    const other = new SQLite(file);
    try {
      fill(t.sqlite);
      expect(derivedMismatches(t.sqlite)).toEqual([]);
      fill(other, 100);
      const steps = [
        "UPDATE pacientes SET nome = 'RENOMEADO SOUZA' WHERE id = 1",
        'UPDATE pacientes SET ativo = 1 - ativo WHERE id % 2 = 0',
        "UPDATE pacientes SET nome = nome || ' FILHO', ativo = 0 WHERE id > 10",
        'DELETE FROM pacientes WHERE id IN (2, 12)',
        "UPDATE exames SET excluido_em = '2026-06-01' WHERE id % 7 = 0 AND excluido_em IS NULL",
        'UPDATE exames SET excluido_em = NULL WHERE id = 11',
        "UPDATE exames SET data_realizado = '2025-12-31', medico_laudo_id = medico_exame_id WHERE id % 5 = 1",
        'UPDATE exames SET medico_exame_id = 3, medico_solicitante_id = 3, procedimento_id = 2 WHERE id % 6 = 2',
        'UPDATE exames SET medico_laudo_id = NULL, medico_solicitante_id = NULL WHERE id % 4 = 3',
        'DELETE FROM laudos WHERE exame_id % 9 = 4; DELETE FROM exames WHERE id % 9 = 4',
        "UPDATE laudos SET excluido_em = '2026-06-01' WHERE id % 4 = 1",
        "UPDATE laudos SET assinado = 1 - assinado, data_laudo = '2026-07-07' WHERE id % 5 = 2",
        'UPDATE laudos SET medico_laudo_id = 3 WHERE id % 3 = 0',
        'DELETE FROM laudos WHERE id % 7 = 3',
        // Report status: files attached, reports signed, unsigned, moved between exams, deleted.
        "UPDATE exames SET arquivo_laudo_key = 'k' WHERE id % 2 = 0",
        'UPDATE laudos SET assinado = 1 WHERE id % 4 = 0',
        'UPDATE laudos SET assinado = 0 WHERE id % 6 = 1',
        'UPDATE laudos SET exame_id = (SELECT MIN(e.id) FROM exames e WHERE e.id > laudos.exame_id) WHERE id % 5 = 0 AND exame_id < 100',
        'UPDATE laudos SET exame_id = NULL WHERE id % 8 = 5',
        "INSERT INTO laudos (exame_id, medico_laudo_id, data_laudo, assinado, criado_em) SELECT id, 1, '2026-08-08', 1, 'c' FROM exames WHERE id % 10 = 2",
        "UPDATE laudos SET excluido_em = '2026-09-09' WHERE id % 9 = 2",
        'UPDATE laudos SET excluido_em = NULL WHERE id % 18 = 2',
        'DELETE FROM laudos WHERE id % 11 = 6',
        'UPDATE exames SET arquivo_laudo_key = NULL WHERE id % 6 = 0',
        "UPDATE exames SET excluido_em = '2026-10-10' WHERE id % 13 = 5",
        'UPDATE pacientes SET nome = nome WHERE id = 3',
      ];
      for (const [i, step] of steps.entries()) {
        (i % 2 ? other : t.sqlite).exec(step);
        expect(derivedMismatches(t.sqlite), step).toEqual([]);
      }
      for (const needle of ['SOUZA', 'FILHO', 'SILVA', 'JOÃO'])
        expect(search(t.sqlite, needle), needle).toEqual(scan(t.sqlite, needle));
      // A transaction rolled back leaves nothing behind in the derived data either.
      expect(() =>
        t.sqlite.transaction(() => {
          t.sqlite.exec(
            "UPDATE pacientes SET nome = 'NAO FICA' WHERE id = 1; DELETE FROM laudos WHERE id < 30; UPDATE exames SET excluido_em = 'x' WHERE id < 30",
          );
          throw new Error('rollback');
        })(),
      ).toThrow('rollback');
      expect(derivedMismatches(t.sqlite)).toEqual([]);
      expect(search(t.sqlite, 'NAO FICA')).toEqual([]);
    } finally {
      other.close();
      await t.close();
    }
  });

  it('patient-name changes queue up and reach the index at the 64th, or when applied (as a search does), whatever the order', async () => {
    const t = await openTenantDatabase(tempFile(), { create: true });
    try {
      const s = t.sqlite;
      const queued = () => s.prepare('SELECT COUNT(*) FROM pacientes_nome_busca_fila').pluck().get();
      const paciente = s.prepare(
        "INSERT INTO pacientes (nome, numero_prontuario, usuario, senha_hash, criado_em) VALUES (?, ?, ?, 'x', 'c')",
      );
      for (let i = 1; i <= 100; i++) {
        paciente.run(`PACIENTE FILA ${i}`, `f${i}`, `f${i}`);
        expect(queued()).toBe(i % 64);
      }
      // Not applied yet: the index holds the first 64 only.
      expect(search(s, 'FILA').length).toBe(64);
      applySearchQueue(s);
      expect(search(s, 'FILA')).toEqual(scan(s, 'FILA'));
      // 63 queued, then a rename of an indexed patient: its first queue entry applies the queue (with
      // the new name), the id is the same, so nothing is left queued that the index already has.
      for (let i = 1; i <= 63; i++) s.prepare('UPDATE pacientes SET nome = ? WHERE id = ?').run(`RENOMEADO ${i}`, i);
      s.prepare("UPDATE pacientes SET nome = 'SEXAGESIMO QUARTO' WHERE id = 64").run();
      expect(queued()).toBe(0);
      expect(derivedMismatches(s)).toEqual([]);
      // Same with a changed id: the old id goes out of the index, the new one waits in the queue.
      for (let i = 1; i <= 63; i++) s.prepare('UPDATE pacientes SET nome = ? WHERE id = ?').run(`OUTRA VEZ ${i}`, i);
      s.prepare("UPDATE pacientes SET id = 5000, nome = 'ID NOVO' WHERE id = 70").run();
      expect(queued()).toBe(1);
      expect(search(s, 'ID NOVO')).toEqual([]);
      expect(derivedMismatches(s)).toEqual([]);
      expect(search(s, 'ID NOVO')).toEqual([5000]);
      // Queued and deleted before being applied, renamed twice, deleted after a rename.
      paciente.run('EFEMERO', 'e1', 'e1');
      s.prepare("DELETE FROM pacientes WHERE nome = 'EFEMERO'").run();
      s.prepare("UPDATE pacientes SET nome = 'DUAS VEZES A' WHERE id = 80").run();
      s.prepare("UPDATE pacientes SET nome = 'DUAS VEZES B' WHERE id = 80").run();
      s.prepare("UPDATE pacientes SET nome = 'SOME' WHERE id = 81").run();
      s.prepare('DELETE FROM pacientes WHERE id = 81').run();
      expect(derivedMismatches(s)).toEqual([]);
      for (const needle of ['EFEMERO', 'DUAS VEZES', 'SOME', 'FILA', 'OUTRA VEZ'])
        expect(search(s, needle), needle).toEqual(scan(s, needle));
    } finally {
      await t.close();
    }
  });

  it('report status counts follow every report change: signed, unsigned, moved between exams, deleted and restored', async () => {
    const t = await openTenantDatabase(tempFile(), { create: true });
    try {
      const s = t.sqlite;
      fill(s);
      const status = (id: number) =>
        s
          .prepare(
            `SELECT CASE WHEN arquivo_laudo_key IS NULL THEN 'PENDENTE' WHEN EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL)
             THEN 'ASSINADO' ELSE 'EMITIDO' END FROM exames WHERE id = ?`,
          )
          .pluck()
          .get(id);
      const [a, b] = [2, 3];
      s.prepare("UPDATE exames SET excluido_em = NULL, arquivo_laudo_key = 'k' WHERE id IN (?, ?)").run(a, b);
      s.prepare('DELETE FROM laudos WHERE exame_id IN (?, ?)').run(a, b);
      const id = Number(
        s
          .prepare("INSERT INTO laudos (exame_id, data_laudo, assinado, criado_em) VALUES (?, '2026-01-01', 1, 'c')")
          .run(a).lastInsertRowid,
      );
      const steps: [string, unknown[], string, string][] = [
        ['SELECT 1', [], 'ASSINADO', 'EMITIDO'],
        ['UPDATE laudos SET exame_id = ? WHERE id = ?', [b, id], 'EMITIDO', 'ASSINADO'],
        ['UPDATE laudos SET assinado = 0 WHERE id = ?', [id], 'EMITIDO', 'EMITIDO'],
        ['UPDATE laudos SET assinado = 1, exame_id = ? WHERE id = ?', [a, id], 'ASSINADO', 'EMITIDO'],
        ["UPDATE laudos SET excluido_em = '2026-02-02' WHERE id = ?", [id], 'EMITIDO', 'EMITIDO'],
        ['UPDATE laudos SET excluido_em = NULL WHERE id = ?', [id], 'ASSINADO', 'EMITIDO'],
        [
          "INSERT INTO laudos (exame_id, data_laudo, assinado, criado_em) VALUES (?, '2026-01-02', 1, 'c')",
          [a],
          'ASSINADO',
          'EMITIDO',
        ],
        ['DELETE FROM laudos WHERE id = ?', [id], 'ASSINADO', 'EMITIDO'],
        ['UPDATE exames SET arquivo_laudo_key = NULL WHERE id = ?', [a], 'PENDENTE', 'EMITIDO'],
        ['UPDATE laudos SET exame_id = ? WHERE exame_id = ?', [b, a], 'PENDENTE', 'ASSINADO'],
        ["UPDATE exames SET arquivo_laudo_key = 'k2' WHERE id = ?", [a], 'EMITIDO', 'ASSINADO'],
        ['UPDATE laudos SET exame_id = NULL WHERE exame_id = ?', [b], 'EMITIDO', 'EMITIDO'],
      ];
      for (const [sql, params, statusA, statusB] of steps) {
        s.prepare(sql).run(...params);
        expect([sql, status(a), status(b)]).toEqual([sql, statusA, statusB]);
        expect(derivedMismatches(s), sql).toEqual([]);
      }
    } finally {
      await t.close();
    }
  });
});
