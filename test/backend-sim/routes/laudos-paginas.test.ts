import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

// Report lists, newest first: totals from the per-date counts and deep pages located from them must give
// exactly what filtering, sorting and slicing every live report gives, for every filter combination.
let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/laudos';

interface Row {
  id: number;
  exame_id: number | null;
  medico_laudo_id: number | null;
  data_laudo: string;
  assinado: number;
  excluido_em: string | null;
  paciente_id: number | null;
  medico_exame_id: number | null;
  e_medico_laudo_id: number | null;
  medico_solicitante_id: number | null;
}
let rows: Row[] = [];

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
      [1, 2].map((i) => ({
        nome: `PACIENTE ${i}`,
        numero_prontuario: String(i),
        usuario: `p${i}`,
        senha_hash: 'x',
        criado_em: '2026-01-01T00:00:00Z',
      })),
    )
    .execute();
  const r = lcg(7);
  const exame = t.sqlite.prepare(
    "INSERT INTO exames (paciente_id, procedimento_id, medico_exame_id, medico_laudo_id, medico_solicitante_id, data_realizado, criado_em) VALUES (?, 1, ?, ?, ?, '2026-01-01', 'c')",
  );
  const laudo = t.sqlite.prepare(
    "INSERT INTO laudos (exame_id, medico_laudo_id, data_laudo, assinado, criado_em) VALUES (?, ?, ?, ?, 'c')",
  );
  t.sqlite.transaction(() => {
    for (let i = 0; i < 400; i++) exame.run(1 + r(2), 1 + r(2), r(2) ? 1 : null, r(4) ? null : 3);
    for (let i = 0; i < 1200; i++) {
      const day = new Date(Date.UTC(2025, 9, 1) + r(300) * 86_400_000).toISOString().slice(0, 10);
      laudo.run(r(30) ? 1 + r(400) : null, r(8) ? 1 + r(2) * 3 : null, day, r(4) ? 1 : 0);
    }
  })();
  t.sqlite.prepare("UPDATE laudos SET excluido_em = '2026-02-02' WHERE id % 17 = 3").run();
  t.sqlite.prepare('DELETE FROM laudos WHERE id % 50 = 7').run();
  rows = t.sqlite
    .prepare(
      `SELECT l.id, l.exame_id, l.medico_laudo_id, l.data_laudo, l.assinado, l.excluido_em, e.paciente_id, e.medico_exame_id,
         e.medico_laudo_id AS e_medico_laudo_id, e.medico_solicitante_id FROM laudos l LEFT JOIN exames e ON e.id = l.exame_id`,
    )
    .all() as Row[];
}, 60_000);
afterAll(() => h.close());

interface Filter {
  medico_laudo_id?: number;
  assinado?: 0 | 1;
  exame_id?: number;
  paciente_id?: number;
  periodo_laudo_inicio?: string;
  periodo_laudo_fim?: string;
}

function expected(f: Filter, bound = 0): number[] {
  return rows
    .filter(
      (r) =>
        r.excluido_em === null &&
        (bound
          ? r.medico_laudo_id === bound ||
            r.medico_exame_id === bound ||
            r.e_medico_laudo_id === bound ||
            r.medico_solicitante_id === bound
          : !f.medico_laudo_id || r.medico_laudo_id === f.medico_laudo_id) &&
        (f.assinado === undefined || r.assinado === f.assinado) &&
        (!f.exame_id || r.exame_id === f.exame_id) &&
        (!f.paciente_id || r.paciente_id === f.paciente_id) &&
        (!f.periodo_laudo_inicio || r.data_laudo >= f.periodo_laudo_inicio) &&
        (!f.periodo_laudo_fim || r.data_laudo <= f.periodo_laudo_fim),
    )
    .sort((a, b) => (a.data_laudo === b.data_laudo ? b.id - a.id : a.data_laudo < b.data_laudo ? 1 : -1))
    .map((r) => r.id);
}

const query = (f: Filter, limit: number, offset: number) =>
  `${base}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)])), limit: String(limit), offset: String(offset) })}`;

describe('GET /laudos totals and pages', () => {
  it('every filter: total, first page, pages across month and day boundaries, the last page and beyond', async () => {
    const filters: Filter[] = [
      {},
      { medico_laudo_id: 1 },
      { medico_laudo_id: 4 },
      { assinado: 0 },
      { assinado: 1, periodo_laudo_inicio: '2025-12-01', periodo_laudo_fim: '2026-03-15' },
      { periodo_laudo_fim: '2026-01-31' },
      // Not answered from the counts.
      { medico_laudo_id: 1, assinado: 1 },
      { paciente_id: 2 },
      { exame_id: rows.find((r) => r.exame_id && r.excluido_em === null)!.exame_id! },
    ];
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
          all.length - 1,
          all.length,
          all.length + 5,
        ]),
      ].filter((o) => o >= 0);
      for (const offset of offsets) {
        const res = await h.call('GET', query(f, 7, offset));
        expect(res.status).toBe(200);
        expect({ f, offset, ids: res.body.data.map((l: { id: number }) => l.id), total: res.body.meta.total }).toEqual({
          f,
          offset,
          ids: all.slice(offset, offset + 7),
          total: all.length,
        });
      }
    }
  });

  it('a key bound to a doctor (AMPLIADO) pages through its reports and its exams’ reports; medico_laudo_id is ignored', async () => {
    for (const offset of [0, 60, 400]) {
      const res = await h.call('GET', query({ medico_laudo_id: 4 }, 10, offset), undefined, {
        'x-medico-filtro-id': '3',
      });
      expect({ ids: res.body.data.map((l: { id: number }) => l.id), total: res.body.meta.total }).toEqual({
        ids: expected({}, 3).slice(offset, offset + 10),
        total: expected({}, 3).length,
      });
    }
  });

  it('list items keep their shape (orphans show exame: null)', async () => {
    const res = await h.call('GET', `${base}?limit=200`);
    const orphan = res.body.data.find((l: { exame: unknown }) => l.exame === null);
    const linked = res.body.data.find((l: { exame: unknown }) => l.exame !== null);
    expect(orphan).toMatchObject({ exame: null, tem_arquivo: false });
    expect(linked.exame).toEqual({
      id: expect.any(Number),
      paciente: { id: expect.any(Number), nome: expect.stringMatching(/^PACIENTE /) },
      tipo_exame: { id: 1, nome: 'Ultrassonografia de abdome total' },
    });
  });
});
