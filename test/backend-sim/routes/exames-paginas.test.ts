import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, derivedMismatches, startHarness, type Harness } from '../helpers.ts';

// Exam lists, newest first: totals from the per-date counts and deep pages located from them must give
// exactly what filtering, sorting and slicing every live row gives, for every filter combination,
// across month and day boundaries, with deleted exams and doctors in several roles.
let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/exames';

interface Row {
  id: number;
  data_realizado: string;
  procedimento_id: number;
  paciente_id: number;
  medico_exame_id: number | null;
  medico_laudo_id: number | null;
  medico_solicitante_id: number | null;
  arquivo_laudo_key: string | null;
  excluido_em: string | null;
  assinado: number;
}
let rows: Row[] = [];

/** Deterministic pseudo-random numbers (a linear congruential generator). */
function lcg(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

beforeAll(async () => {
  h = await startHarness();
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
  await t.db
    .insertInto('pacientes')
    .values(
      [1, 2, 3].map((i) => ({
        nome: `PACIENTE ${i}`,
        numero_prontuario: String(i),
        usuario: `p${i}`,
        senha_hash: 'x',
        criado_em: '2026-01-01T00:00:00Z',
      })),
    )
    .execute();
  // 2,600 exams over ~14 months on a second connection, so the triggers keep the counts: doctor 1 in
  // most of them (more than the 2,000 above which its pages walk the date index), doctor 3 in few.
  const r = lcg(42);
  const insert = t.sqlite.prepare(
    `INSERT INTO exames (paciente_id, procedimento_id, unidade_id, medico_exame_id, medico_laudo_id, medico_solicitante_id, data_realizado, arquivo_laudo_key, criado_em)
     VALUES (?, ?, 1, ?, ?, ?, ?, ?, '2026-01-01T00:00:00Z')`,
  );
  t.sqlite.transaction(() => {
    for (let i = 0; i < 2600; i++) {
      const day = new Date(Date.UTC(2025, 8, 1) + r(430) * 86_400_000).toISOString().slice(0, 10);
      const me = r(10) < 8 ? 1 : 2;
      const ml = r(3) === 0 ? null : r(2) === 0 ? 1 : 4;
      const ms = r(20) === 0 ? 3 : r(5) === 0 ? me : null;
      insert.run(1 + r(3), 1 + r(2), me, ml, ms, day, r(2) ? 'k' : null);
    }
  })();
  // Signed reports for some exams, an unsigned one for others (status ASSINADO / EMITIDO with a file).
  t.sqlite
    .prepare(
      "INSERT INTO laudos (exame_id, data_laudo, assinado, criado_em) SELECT id, '2026-01-01', id % 3 = 0, 'c' FROM exames WHERE id % 3 != 1",
    )
    .run();
  // Some deleted through the API (soft delete), one removed outright, one moved to another date and doctor.
  for (const id of [5, 17, 400, 1234, 2599])
    expect((await h.call('DELETE', `${base}/${id}`, { motivo: 'teste de contagem' })).status).toBe(200);
  t.sqlite.exec('DELETE FROM laudos WHERE exame_id = 777; DELETE FROM exames WHERE id = 777');
  t.sqlite
    .prepare("UPDATE exames SET data_realizado = '2026-10-31', medico_exame_id = 2, medico_laudo_id = 1 WHERE id = 900")
    .run();
  rows = t.sqlite
    .prepare(
      `SELECT id, data_realizado, procedimento_id, paciente_id, medico_exame_id, medico_laudo_id, medico_solicitante_id, arquivo_laudo_key, excluido_em,
         EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL) AS assinado FROM exames`,
    )
    .all() as Row[];
}, 60_000);
afterAll(() => h.close());

interface Filter {
  medico_id?: number;
  tipo_exame_id?: number;
  paciente_id?: number;
  periodo_realizado_inicio?: string;
  periodo_realizado_fim?: string;
  status_laudo?: 'PENDENTE' | 'EMITIDO' | 'ASSINADO';
}

const statusOf = (r: Row) => (r.arquivo_laudo_key === null ? 'PENDENTE' : r.assinado ? 'ASSINADO' : 'EMITIDO');

function expected(f: Filter, bound = 0): number[] {
  const medico = bound || f.medico_id || 0;
  return rows
    .filter(
      (r) =>
        r.excluido_em === null &&
        (!medico ||
          r.medico_exame_id === medico ||
          r.medico_laudo_id === medico ||
          r.medico_solicitante_id === medico) &&
        (!f.tipo_exame_id || r.procedimento_id === f.tipo_exame_id) &&
        (!f.paciente_id || r.paciente_id === f.paciente_id) &&
        (!f.periodo_realizado_inicio || r.data_realizado >= f.periodo_realizado_inicio) &&
        (!f.periodo_realizado_fim || r.data_realizado <= f.periodo_realizado_fim) &&
        (!f.status_laudo || statusOf(r) === f.status_laudo),
    )
    .sort((a, b) =>
      a.data_realizado === b.data_realizado ? b.id - a.id : a.data_realizado < b.data_realizado ? 1 : -1,
    )
    .map((r) => r.id);
}

const query = (f: Filter, limit: number, offset: number) =>
  `${base}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)])), limit: String(limit), offset: String(offset) })}`;

const filters: Filter[] = [
  {},
  { medico_id: 1 },
  { medico_id: 2 },
  { medico_id: 3 },
  { medico_id: 4 },
  { medico_id: 99 },
  { tipo_exame_id: 2 },
  { periodo_realizado_inicio: '2026-02-10', periodo_realizado_fim: '2026-05-03' },
  { medico_id: 1, periodo_realizado_inicio: '2025-12-31' },
  { tipo_exame_id: 1, periodo_realizado_fim: '2026-01-15' },
  { status_laudo: 'PENDENTE' },
  { status_laudo: 'EMITIDO' },
  { status_laudo: 'ASSINADO', periodo_realizado_inicio: '2026-01-20', periodo_realizado_fim: '2026-09-30' },
  // Not answered from the counts: two of doctor / procedure / status, a patient.
  { medico_id: 1, tipo_exame_id: 1 },
  { paciente_id: 2 },
  { status_laudo: 'PENDENTE', medico_id: 2 },
  { status_laudo: 'ASSINADO', tipo_exame_id: 2 },
];

describe('GET /exames totals and pages', () => {
  it('every filter: total, first page, pages across month and day boundaries, the last page and beyond', async () => {
    for (const f of filters) {
      const all = expected(f);
      const offsets = [
        ...new Set([
          0,
          1,
          7,
          49,
          50,
          51,
          333,
          Math.floor(all.length / 2),
          Math.floor(all.length * 0.8),
          all.length - 3,
          all.length - 1,
          all.length,
          all.length + 20,
        ]),
      ].filter((o) => o >= 0);
      for (const offset of offsets) {
        const res = await h.call('GET', query(f, 7, offset));
        expect(res.status).toBe(200);
        expect({ f, offset, ids: res.body.data.map((e: { id: number }) => e.id), total: res.body.meta.total }).toEqual({
          f,
          offset,
          ids: all.slice(offset, offset + 7),
          total: all.length,
        });
      }
    }
  });

  it('walking the whole list page by page gives every live exam once, in order', async () => {
    for (const f of [{}, { medico_id: 2 }] as Filter[]) {
      const seen: number[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = (await h.call('GET', query(f, 200, offset))).body.data.map((e: { id: number }) => e.id);
        if (page.length === 0) break;
        seen.push(...page);
      }
      expect(seen).toEqual(expected(f));
    }
  });

  it('a key bound to a doctor (SIMPLES) pages through its own exams; its medico_id is ignored', async () => {
    for (const offset of [0, 120, 1500]) {
      const res = await h.call('GET', query({ medico_id: 2 }, 10, offset), undefined, { 'x-medico-filtro-id': '3' });
      expect({ ids: res.body.data.map((e: { id: number }) => e.id), total: res.body.meta.total }).toEqual({
        ids: expected({}, 3).slice(offset, offset + 10),
        total: expected({}, 3).length,
      });
    }
  });

  it('counts follow creates and deletes through the API', async () => {
    const before = (await h.call('GET', `${base}?limit=1&medico_id=3`)).body.meta.total;
    const created = await h.call('POST', base, {
      paciente_id: 1,
      procedimento_id: 1,
      unidade_id: 1,
      medico_exame_id: 2,
      medico_solicitante_id: 3,
      data_exame: '2024-01-02',
    });
    expect(created.status).toBe(201);
    expect((await h.call('GET', `${base}?limit=1&medico_id=3`)).body.meta.total).toBe(before + 1);
    const last = await h.call('GET', `${base}?limit=1&offset=${before}&medico_id=3`);
    expect(last.body.data.map((e: { id: number }) => e.id)).toEqual([created.body.data.id]);
    expect((await h.call('DELETE', `${base}/${created.body.data.id}`, { motivo: 'teste de contagem' })).status).toBe(
      200,
    );
    expect((await h.call('GET', `${base}?limit=1&medico_id=3`)).body.meta.total).toBe(before);
    expect(derivedMismatches(t.sqlite)).toEqual([]);
  });
});
