import SQLite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isValidCpf } from '../../backend-sim/lib/cpf.ts';
import { createTenantDatabase } from '../../backend-sim/tenants.ts';
import { derivedMismatches } from '../backend-sim/helpers.ts';
import { DEFAULT_TENANTS } from '../../seed/default-tenants.ts';
import { seedDefaultTenants, seedTenant, type SeedProgress } from '../../seed/seed.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'seed-test-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * One hash per table over every row in primary-key order: ordinary tables and the search index's
 * shadow tables (its pages), not the FTS5 virtual table itself (it reads the patients back).
 */
function dump(file: string): Record<string, string> {
  const db = new SQLite(file, { readonly: true });
  try {
    const tables = (
      db
        .prepare(
          "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name",
        )
        .all() as { name: string }[]
    ).map((t) => t.name);
    const out: Record<string, string> = {};
    for (const t of tables) {
      const rows = db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all();
      out[t] = `${rows.length}:${createHash('sha256').update(JSON.stringify(rows)).digest('hex')}`;
    }
    return out;
  } finally {
    db.close();
  }
}

const small = { patients: 300, exams: 900, appointments: 250, profile: 'rich' as const };

describe('seedTenant', () => {
  it('same seed gives identical data, in a fresh directory and when reseeding in place', async () => {
    const a = tempDir();
    const b = tempDir();
    const ra = await seedTenant({ dataDir: a, slug: 'demo', seed: 'abc', ...small });
    await seedTenant({ dataDir: b, slug: 'demo', seed: 'abc', ...small });
    const first = dump(ra.file);
    expect(dump(join(b, 'backend', 'demo.db'))).toEqual(first);
    // Reseeding an existing tenant replaces its rows with the same content.
    await seedTenant({ dataDir: a, slug: 'demo', seed: 'abc', ...small });
    expect(dump(ra.file)).toEqual(first);
    expect(Number(first.pacientes.split(':')[0])).toBe(300);
    expect(Number(first.exames.split(':')[0])).toBe(900);
  });

  it('a different seed gives different data', async () => {
    const a = tempDir();
    const r1 = await seedTenant({ dataDir: a, slug: 't1', seed: 1, ...small });
    const r2 = await seedTenant({ dataDir: a, slug: 't2', seed: 2, ...small });
    expect(dump(r1.file).pacientes).not.toEqual(dump(r2.file).pacientes);
  });

  it('writes valid, unique CPFs, 11-digit mobiles, valid references and reports progress', async () => {
    const dir = tempDir();
    const phases = new Set<SeedProgress['phase']>();
    const r = await seedTenant({
      dataDir: dir,
      slug: 'demo',
      seed: 7,
      patients: 2000,
      exams: 3000,
      appointments: 800,
      profile: 'rich',
      onProgress: (p) => phases.add(p.phase),
    });
    expect([...phases]).toEqual(expect.arrayContaining(['catalogos', 'pacientes', 'exames', 'agendamentos']));
    const db = new SQLite(r.file, { readonly: true });
    try {
      const pacientes = db.prepare('SELECT cpf, celular, nome, endereco_cep FROM pacientes').all() as {
        cpf: string | null;
        celular: string;
        nome: string;
        endereco_cep: string;
      }[];
      const cpfs = pacientes.map((p) => p.cpf).filter((c): c is string => c !== null);
      expect(cpfs.length).toBeGreaterThan(1800);
      expect(cpfs.every(isValidCpf)).toBe(true);
      expect(new Set(cpfs).size).toBe(cpfs.length);
      expect(pacientes.every((p) => /^\d{2}9\d{8}$/.test(p.celular))).toBe(true);
      expect(pacientes.every((p) => /^\d{8}$/.test(p.endereco_cep) && p.nome === p.nome.toUpperCase())).toBe(true);
      const medicos = db.prepare('SELECT cpf, conselho_sigla, conselho_numero, conselho_uf FROM medicos').all() as {
        cpf: string;
        conselho_sigla: string;
        conselho_numero: string;
        conselho_uf: string;
      }[];
      expect(
        medicos.every(
          (m) =>
            isValidCpf(m.cpf) &&
            m.conselho_sigla === 'CRM' &&
            /^\d{5,6}$/.test(m.conselho_numero) &&
            /^[A-Z]{2}$/.test(m.conselho_uf),
        ),
      ).toBe(true);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      const procs = db.prepare("SELECT codigo_tuss FROM procedimentos WHERE codigo_tuss != ''").all() as {
        codigo_tuss: string;
      }[];
      expect(procs.every((p) => /^\d{8}$/.test(p.codigo_tuss))).toBe(true);
      // Seeded appointments never overlap on the grid (encaixes excepted).
      const overlaps = db
        .prepare(
          `SELECT COUNT(*) AS n FROM agendamentos a JOIN agendamentos b ON a.agenda_config_id = b.agenda_config_id AND a.data_agendamento = b.data_agendamento
           AND a.id < b.id AND a.encaixe = 0 AND b.encaixe = 0 AND a.hora_inicio < b.hora_fim AND b.hora_inicio < a.hora_fim`,
        )
        .get() as { n: number };
      expect(overlaps.n).toBe(0);
      const semHistorico = db
        .prepare(
          'SELECT COUNT(*) AS n FROM agendamentos WHERE id NOT IN (SELECT agendamento_id FROM agendamento_historico)',
        )
        .get() as { n: number };
      expect(semHistorico.n).toBe(0);
      const assinados = db.prepare('SELECT COUNT(*) AS n FROM laudos WHERE assinado = 1').get() as { n: number };
      expect(assinados.n).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('builds indexes, search index, counts and triggers after the load, and leaves the file in WAL mode, intact', async () => {
    const dir = tempDir();
    const r = await seedTenant({
      dataDir: dir,
      slug: 'demo',
      seed: 11,
      patients: 400,
      exams: 2500,
      appointments: 50,
      profile: 'rich',
    });
    // The schema a fresh, migrated database has: same indexes and triggers.
    const fresh = await createTenantDatabase(tempDir(), 'vazio');
    const schema = (db: SQLite.Database) =>
      db
        .prepare(
          "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger', 'table') AND name NOT LIKE 'sqlite_stat%' ORDER BY type, name",
        )
        .all();
    const expected = schema(fresh.sqlite);
    await fresh.close();
    const db = new SQLite(r.file, { readonly: true });
    try {
      expect(schema(db)).toEqual(expected);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('quick_check', { simple: true })).toBe('ok');
      // Counts and search index, recomputed from their definitions (on a writable connection: FTS5's integrity-check).
      const writable = new SQLite(r.file);
      try {
        expect(derivedMismatches(writable)).toEqual([]);
        expect(writable.prepare('SELECT COUNT(DISTINCT filtro) FROM exames_contagem').pluck().get()).toBe(4);
        expect(writable.prepare('SELECT COUNT(DISTINCT filtro) FROM laudos_contagem').pluck().get()).toBe(3);
      } finally {
        writable.close();
      }
      // The search index answers what instr answers.
      for (const needle of ['SILVA', 'ANA', 'A S', 'ÇÃO', 'MARIA DA']) {
        const fts = db
          .prepare('SELECT rowid FROM pacientes_nome_busca WHERE pacientes_nome_busca MATCH ? ORDER BY rowid')
          .pluck()
          .all(`"${needle}"`);
        expect(fts).toEqual(
          db.prepare('SELECT id FROM pacientes WHERE instr(nome, ?) > 0 ORDER BY id').pluck().all(needle),
        );
      }
    } finally {
      db.close();
    }
  });

  // Issue 20 § 9: "seeded appointment histories are out of order ("cancelled" before "created") and seeded
  // creation times lie in the future". Spec 02 § Appointments: the detail's `historico[]` is "ordered oldest first".
  for (const referenceDate of ['2026-11-01T12:00:00Z', '2026-03-10T06:30:00Z']) {
    it(`nothing seeded lies after the reference instant, and every appointment history runs forward (reference ${referenceDate})`, async () => {
      const r = await seedTenant({
        dataDir: tempDir(),
        slug: 'demo',
        seed: 'ordem',
        patients: 400,
        exams: 3000,
        appointments: 1500,
        profile: 'rich',
        referenceDate,
      });
      const db = new SQLite(r.file, { readonly: true });
      try {
        const ref = referenceDate;
        const after = (sql: string) => db.prepare(sql).all(ref);
        // Every stored instant, in the one format the seed writes (YYYY-MM-DDTHH:MM:SSZ, comparable as text).
        for (const [table, column] of [
          ['pacientes', 'criado_em'],
          ['medicos', 'criado_em'],
          ['agenda_configs', 'criado_em'],
          ['exames', 'criado_em'],
          ['exames', 'atualizado_em'],
          ['exames', "data_realizado || 'T' || hora_realizado || 'Z'"],
          ['laudos', 'criado_em'],
          ['laudos', 'assinado_em'],
          ['laudos', "data_laudo || 'T' || hora_laudo || 'Z'"],
          ['agendamentos', 'criado_em'],
          ['agendamentos', 'atualizado_em'],
          ['agendamentos', 'cancelado_em'],
          ['agendamento_historico', 'data_hora'],
          ['prontuarios', 'criado_em'],
          ['prontuarios', 'data_emissao'],
          ['prontuario_anexos', 'criado_em'],
        ]) {
          expect(
            after(`SELECT ${column} AS t FROM ${table} WHERE ${column} > ? LIMIT 3`),
            `${table}.${column}`,
          ).toEqual([]);
          expect(
            db
              .prepare(
                `SELECT COUNT(*) FROM ${table} WHERE ${column} IS NOT NULL AND ${column} NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'`,
              )
              .pluck()
              .get(),
            `${table}.${column}`,
          ).toBe(0);
        }
        // The seed still writes future appointments (the agenda ahead), only their bookings are in the past.
        expect(
          db.prepare('SELECT COUNT(*) FROM agendamentos WHERE data_agendamento > ?').pluck().get(ref.slice(0, 10)),
        ).toBeGreaterThan(100);
        // A report is not written before the exam it reports on.
        expect(
          db
            .prepare(`SELECT COUNT(*) FROM laudos l JOIN exames e ON e.id = l.exame_id
                      WHERE l.data_laudo || 'T' || l.hora_laudo < e.data_realizado || 'T' || e.hora_realizado`)
            .pluck()
            .get(),
        ).toBe(0);

        const appointments = db
          .prepare(
            'SELECT id, status, data_agendamento, hora_inicio, criado_em, atualizado_em, cancelado_em FROM agendamentos',
          )
          .all() as {
          id: number;
          status: string;
          data_agendamento: string;
          hora_inicio: string;
          criado_em: string;
          atualizado_em: string | null;
          cancelado_em: string | null;
        }[];
        const history = new Map<number, { status_anterior: string | null; status_novo: string; data_hora: string }[]>();
        for (const h of db
          .prepare(
            'SELECT agendamento_id, status_anterior, status_novo, data_hora FROM agendamento_historico ORDER BY id',
          )
          .all() as {
          agendamento_id: number;
          status_anterior: string | null;
          status_novo: string;
          data_hora: string;
        }[]) {
          const list = history.get(h.agendamento_id) ?? [];
          list.push(h);
          history.set(h.agendamento_id, list);
        }
        expect(appointments.length).toBeGreaterThan(1000);
        const statuses = new Set<string>();
        for (const a of appointments) {
          const steps = history.get(a.id)!;
          const label = JSON.stringify({ a, steps });
          // Created first, when the appointment was booked, before the appointment itself.
          expect(steps[0], label).toMatchObject({
            status_anterior: null,
            status_novo: 'agendado',
            data_hora: a.criado_em,
          });
          expect(a.criado_em < `${a.data_agendamento}T${a.hora_inicio}:00Z`, label).toBe(true);
          for (let k = 1; k < steps.length; k++) {
            expect(steps[k].status_anterior, label).toBe(steps[k - 1].status_novo);
            expect(steps[k].data_hora > steps[k - 1].data_hora, label).toBe(true);
          }
          expect(steps[steps.length - 1].status_novo, label).toBe(a.status);
          expect(a.atualizado_em, label).toBe(steps.length > 1 ? steps[steps.length - 1].data_hora : null);
          expect(a.cancelado_em, label).toBe(a.status === 'cancelado' ? steps[steps.length - 1].data_hora : null);
          statuses.add(a.status);
        }
        expect([...statuses].sort()).toEqual([
          'agendado',
          'aguardando_confirmacao',
          'cancelado',
          'confirmado',
          'finalizado',
          'nao_compareceu',
        ]);
      } finally {
        db.close();
      }
    });
  }

  it('rejects bad sizes', async () => {
    await expect(
      seedTenant({ dataDir: tempDir(), slug: 'x', seed: 1, patients: -1, exams: 0, appointments: 0, profile: 'rich' }),
    ).rejects.toThrow();
    await expect(
      seedTenant({ dataDir: tempDir(), slug: 'x', seed: 1, patients: 0, exams: 5, appointments: 0, profile: 'rich' }),
    ).rejects.toThrow(/patient/);
  });
});

describe('seedDefaultTenants', () => {
  it('seeds demo, sandbox and clinica-b once and returns doctor ids by role', async () => {
    const dir = tempDir();
    const first = await seedDefaultTenants(dir);
    expect(Object.values(first).map((t) => [t.slug, t.profile, t.seeded])).toEqual([
      ['demo', 'rich', true],
      ['sandbox', 'synthetic', true],
      ['clinica-b', 'rich', true],
    ]);
    for (const t of Object.values(first)) {
      // The name first-start bootstrap registers (the same list, seed/default-tenants.ts) is the one seeded.
      const db = new SQLite(join(dir, 'backend', `${t.slug}.db`), { readonly: true });
      expect(db.prepare('SELECT nome FROM clinica_config').pluck().get()).toBe(
        DEFAULT_TENANTS.find((d) => d.slug === t.slug)!.nome,
      );
      db.close();
      expect(t.medicos.exame.length).toBeGreaterThan(0);
      expect(t.medicos.laudo.length).toBeGreaterThan(0);
      // The first bindable doctor performs and reports exams.
      expect(t.medicos.exame).toContain(t.medicoIds[0]);
      expect(t.medicos.laudo).toContain(t.medicoIds[0]);
    }
    const before = dump(join(dir, 'backend', 'demo.db'));
    const second = await seedDefaultTenants(dir);
    expect(Object.values(second).every((t) => !t.seeded)).toBe(true);
    expect(Object.values(second).map((t) => t.medicoIds)).toEqual(Object.values(first).map((t) => t.medicoIds));
    expect(dump(join(dir, 'backend', 'demo.db'))).toEqual(before);
  });
});
