import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { arrangeCatalog, createTenant, startHarness, type Harness } from '../helpers.ts';

// The `nome` contains-search answers from a trigram index from 3 characters on, and with `instr` below
// that. Whatever answers, the result is what `instr(nome, upper(trim(needle))) > 0` selects: same rows,
// same order (id), same total, with the other filters and paging.
let h: Harness;
let t: TenantDatabase;
const base = '/tenants/demo/pacientes';

/** Through the API (stored upper case), then a few rows written directly, as a fixture or another tool would. */
const viaApi = [
  'João da Silva',
  'Maria Silvana Costa',
  'Ana Silva-Costa',
  'José  Silva',
  'Conceição Araújo',
  'Dasilva Junior',
  'Ágata Ñandu Øster',
  '"Quoted" Name',
  'A*B OR C AND D',
  'NEAR(X Y) Souza',
  'Emoji 😀 Nome',
  'Ana',
  'Silva',
  'ß straße',
  'Lúcia Sílva',
  'Σίσυφος Ελληνικά',
  'Daniela Anaí',
  'Ana Ana Ana',
  'Tab\tSilva',
  'Ponto.Final',
  'Percent % Under _',
];
const direct = ['silva minúscula', 'SiLvA Mista', 'ÇÃO INICIO', 'MEIO ÇÃO MEIO', 'NUL\u0000SILVA', 'SOH\u0001SILVA'];

let rows: { id: number; nome: string; ativo: number }[] = [];

beforeAll(async () => {
  h = await startHarness();
  t = await createTenant(h, 'demo');
  await arrangeCatalog(t);
  let n = 0;
  for (const nome of viaApi) {
    const res = await h.call('POST', base, { nome, data_nascimento: '1990-05-06', ativo: ++n % 4 !== 0 });
    expect(res.status).toBe(201);
  }
  for (const nome of direct)
    await t.db
      .insertInto('pacientes')
      .values({
        nome,
        numero_prontuario: `d-${++n}`,
        usuario: `direto${n}`,
        senha_hash: 'x',
        criado_em: '2026-01-01T00:00:00Z',
        ativo: n % 2,
      })
      .execute();
  rows = await t.db.selectFrom('pacientes').select(['id', 'nome', 'ativo']).orderBy('id').execute();
});
afterAll(() => h.close());

const needles = [
  'silva',
  'SILVA',
  ' Silva ',
  'a s',
  'ão',
  'JOÃO DA',
  'lva-co',
  'A-C',
  '"quo',
  '"',
  '""',
  'a*b',
  'or c',
  'and',
  'near(',
  '😀 n',
  '😀',
  'ça',
  'ção',
  'ÇÃO',
  'Ñan',
  'straße',
  'STRASSE',
  'ΊΣΥ',
  'σίσ',
  'ana',
  'ana ana',
  'naí',
  'b\ts',
  'ab\tsi',
  '.',
  'o.f',
  '%',
  '_',
  '% u',
  'lúc',
  'silv',
  'SIL',
  'il',
  'xy',
  'a',
  '  ',
  'aaaa',
  'mista',
  'minúscula',
  'MEIO',
  // Control characters (issue 20 § 4): the gateway refuses them, a direct call gets instr semantics, never a 500
  // (a NUL cannot travel in an FTS5 query string).
  'l\u0000s',
  'nul\u0000',
  '\u0000',
  '\u0000\u0000\u0000',
  'a\u0000b',
  'h\u0001s',
  '\u0001si',
];

function expected(needle: string, ativo?: number) {
  const n = needle.trim().toUpperCase();
  return rows.filter((r) => r.nome.includes(n) && (ativo === undefined || r.ativo === ativo)).map((r) => r.id);
}

describe('GET /pacientes?nome= (trigram index, instr semantics)', () => {
  it('returns what instr returns for every needle: substrings anywhere, accents, case, quotes and FTS syntax, under 3 characters', async () => {
    for (const needle of needles) {
      const res = await h.call('GET', `${base}?limit=200&nome=${encodeURIComponent(needle)}`);
      expect(res.status, needle).toBe(200);
      const ids = res.body.data.map((p: { id: number }) => p.id);
      expect({ needle, ids, total: res.body.meta.total }).toEqual({
        needle,
        ids: expected(needle),
        total: expected(needle).length,
      });
    }
  });

  it('combined with ativo, and paged', async () => {
    for (const needle of ['silva', 'ana', 'ÇÃO', 'a']) {
      for (const ativo of [0, 1]) {
        const res = await h.call('GET', `${base}?limit=200&nome=${encodeURIComponent(needle)}&ativo=${ativo}`);
        expect({
          needle,
          ativo,
          ids: res.body.data.map((p: { id: number }) => p.id),
          total: res.body.meta.total,
        }).toEqual({
          needle,
          ativo,
          ids: expected(needle, ativo),
          total: expected(needle, ativo).length,
        });
      }
      const all = expected(needle);
      for (const offset of [0, 1, 2, all.length - 1, all.length, all.length + 3]) {
        const res = await h.call('GET', `${base}?limit=2&offset=${offset}&nome=${encodeURIComponent(needle)}`);
        expect({
          needle,
          offset,
          ids: res.body.data.map((p: { id: number }) => p.id),
          total: res.body.meta.total,
        }).toEqual({
          needle,
          offset,
          ids: all.slice(Math.max(0, offset), offset + 2),
          total: all.length,
        });
      }
    }
  });

  it('combined with cpf and with the registration period', async () => {
    const cpf = '52998224725';
    const { id } = (await h.call('POST', base, { nome: 'Cpf Silvestre', cpf, data_nascimento: '1990-05-06' })).body
      .data;
    rows = await t.db.selectFrom('pacientes').select(['id', 'nome', 'ativo']).orderBy('id').execute();
    expect((await h.call('GET', `${base}?cpf=${cpf}&nome=silv`)).body.data.map((p: { id: number }) => p.id)).toEqual([
      id,
    ]);
    expect((await h.call('GET', `${base}?cpf=${cpf}&nome=silva`)).body.meta.total).toBe(0);
    expect((await h.call('GET', `${base}?cpf=${cpf}&nome=si`)).body.data.map((p: { id: number }) => p.id)).toEqual([
      id,
    ]);
    const period = await h.call('GET', `${base}?limit=200&nome=silva&periodo_cadastro_inicio=2020-01-01`);
    expect({ ids: period.body.data.map((p: { id: number }) => p.id), total: period.body.meta.total }).toEqual({
      ids: expected('silva'),
      total: expected('silva').length,
    });
    const none = await h.call('GET', `${base}?nome=silva&periodo_cadastro_fim=2020-01-01`);
    expect(none.body.meta.total).toBe(0);
  });

  it('follows renames and deletions (the index is kept by triggers)', async () => {
    const { id } = (await h.call('POST', base, { nome: 'Temporario Xyzzy', data_nascimento: '1990-05-06' })).body.data;
    expect((await h.call('GET', `${base}?nome=xyzzy`)).body.data.map((p: { id: number }) => p.id)).toEqual([id]);
    expect((await h.call('PATCH', `${base}/${id}`, { nome: 'Renomeado Plugh' })).status).toBe(200);
    expect((await h.call('GET', `${base}?nome=xyzzy`)).body.meta.total).toBe(0);
    expect((await h.call('GET', `${base}?nome=plugh`)).body.data.map((p: { id: number }) => p.id)).toEqual([id]);
    // Unify deletes the duplicate physically.
    const other = (await h.call('POST', base, { nome: 'Outro Plugh', data_nascimento: '1990-05-06' })).body.data.id;
    expect((await h.call('GET', `${base}?nome=plugh`)).body.meta.total).toBe(2);
    expect(
      (await h.call('POST', `${base}/unificar`, { paciente_id_principal: id, paciente_id_duplicado: other })).status,
    ).toBe(200);
    expect((await h.call('GET', `${base}?nome=plugh`)).body.data.map((p: { id: number }) => p.id)).toEqual([id]);
    // A direct SQL rename on another connection, too.
    await t.db.updateTable('pacientes').set({ nome: 'DIRETO QUUX' }).where('id', '=', id).execute();
    expect((await h.call('GET', `${base}?nome=quux`)).body.data.map((p: { id: number }) => p.id)).toEqual([id]);
    expect((await h.call('GET', `${base}?nome=plugh`)).body.meta.total).toBe(0);
  });
});

describe('GET /pacientes totals and deep pages', () => {
  it('total and pages without filters, with ativo, beyond the end', async () => {
    const all = await t.db.selectFrom('pacientes').select(['id', 'ativo']).orderBy('id').execute();
    for (const ativo of [undefined, 0, 1]) {
      const ids = all.filter((r) => ativo === undefined || r.ativo === ativo).map((r) => r.id);
      for (const offset of [0, 3, ids.length - 2, ids.length, ids.length + 10]) {
        const res = await h.call(
          'GET',
          `${base}?limit=5&offset=${offset}${ativo === undefined ? '' : `&ativo=${ativo}`}`,
        );
        expect({
          ativo,
          offset,
          ids: res.body.data.map((p: { id: number }) => p.id),
          total: res.body.meta.total,
        }).toEqual({
          ativo,
          offset,
          ids: ids.slice(offset, offset + 5),
          total: ids.length,
        });
      }
    }
  });

  it('a list item has exactly the list fields', async () => {
    const res = await h.call('GET', `${base}?limit=1`);
    expect(Object.keys(res.body.data[0]).sort()).toEqual([
      'ativo',
      'cpf',
      'criado_em',
      'data_nascimento',
      'email',
      'id',
      'nome',
      'sexo',
      'telefone',
    ]);
  });
});

describe('totals counted once per database state (decisions P25-B1)', () => {
  it('a total asked again is still the count of the stored rows after every kind of write, by this connection or another', async () => {
    const other = await createTenant(h, 'contagem');
    const path = '/tenants/contagem/pacientes';
    const create = async (nome: string) =>
      (await h.call('POST', path, { nome, data_nascimento: '1990-05-06' })).body.data.id as number;
    const [silva, , souza] = [await create('Ana Silva'), await create('Bruno Silva'), await create('Carla Souza')];
    // The search's count (alone and with ativo), a short needle (instr) and the registration period (a row scan).
    const queries: { q: string; nome?: string; ativo?: number; desde?: string }[] = [
      { q: 'nome=silva', nome: 'SILVA' },
      { q: 'nome=silva&ativo=1', nome: 'SILVA', ativo: 1 },
      { q: 'nome=silva&ativo=0', nome: 'SILVA', ativo: 0 },
      { q: 'nome=si', nome: 'SI' },
      { q: 'periodo_cadastro_inicio=2000-01-01', desde: '2000-01-01' },
    ];
    const check = async (step: string) => {
      const stored = await other.db
        .selectFrom('pacientes')
        .select(['id', 'nome', 'ativo', 'criado_em'])
        .orderBy('id')
        .execute();
      for (const { q, nome, ativo, desde } of queries) {
        const want = stored
          .filter(
            (r) =>
              (!nome || r.nome.includes(nome)) &&
              (ativo === undefined || r.ativo === ativo) &&
              (!desde || r.criado_em >= desde),
          )
          .map((r) => r.id);
        // Twice: the second answer is the remembered total when nothing changed in between.
        for (const attempt of [1, 2]) {
          const res = await h.call('GET', `${path}?limit=200&${q}`);
          expect({
            step,
            q,
            attempt,
            ids: res.body.data.map((p: { id: number }) => p.id),
            total: res.body.meta.total,
          }).toEqual({ step, q, attempt, ids: want, total: want.length });
        }
      }
    };
    await check('created');
    // Only `ativo` changes (no name, so the search index is untouched): the totals with ativo follow.
    expect((await h.call('PATCH', `${path}/${silva}`, { ativo: false })).status).toBe(200);
    await check('ativo changed');
    await create('Dora Silveira');
    await check('created through the API');
    // Another connection writes (another tool on the file): its commits are seen too.
    await other.db
      .insertInto('pacientes')
      .values({
        nome: 'EDU SILVA',
        numero_prontuario: 'x-1',
        usuario: 'x1',
        senha_hash: 'x',
        criado_em: '2026-01-01T00:00:00Z',
        ativo: 1,
      })
      .execute();
    await check('inserted by another connection');
    await other.db.updateTable('pacientes').set({ nome: 'CARLA SILVA SOUZA' }).where('id', '=', souza).execute();
    await check('renamed by another connection');
    await other.db.updateTable('pacientes').set({ ativo: 0 }).where('nome', '=', 'EDU SILVA').execute();
    await check('ativo changed by another connection');
    expect(
      (await h.call('POST', `${path}/unificar`, { paciente_id_principal: silva, paciente_id_duplicado: souza })).status,
    ).toBe(200);
    await check('unified (a deletion)');
    // A write refused (duplicate record number) changes nothing, and the totals stay right.
    expect(
      (await h.call('POST', path, { nome: 'Fabio Silva', numero_prontuario: 'x-1', data_nascimento: '1990-05-06' }))
        .status,
    ).toBe(422);
    await check('refused write');
    expect((await h.call('POST', '/admin/tenants/contagem/reset', {})).status).toBe(200);
    await check('reset to the first-start state');
    expect((await h.call('GET', `${path}?nome=silva`)).body.meta.total).toBe(0);
  });
});
