import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { BackendError } from '../errors.ts';

const pageFields = {
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};
/** Catalogs without pagination in the spec return everything unless the gateway sends limit/offset. */
const optionalPage = {
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
};
const ativo = z.enum(['0', '1']).optional();
const bool = (v: number) => v === 1;

/** LIKE with the user's text taken literally ('%' and '_' escaped); SQLite LIKE is ASCII case-insensitive. */
export function likePrefix(s: string): string {
  return `${s.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

async function paginate<T>(rows: Promise<T[]>, total: Promise<{ total: number | bigint | string }>) {
  const [data, count] = await Promise.all([rows, total]);
  return { rows: data, total: Number(count.total) };
}

export const procedimentosQuery = z.object({ q: z.string().optional(), ativo, ...pageFields });

export async function listProcedimentos(db: Db, f: z.infer<typeof procedimentosQuery>) {
  let q = db.selectFrom('procedimentos').where('ativo', '=', f.ativo === '0' ? 0 : 1);
  if (f.q) q = q.where(sql<boolean>`nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  const { rows, total } = await paginate(
    q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  );
  return {
    total,
    data: rows.map((p) => ({
      id: p.id,
      nome: p.nome,
      abreviacao: p.abreviacao,
      codigo_tuss: p.codigo_tuss ?? '',
      descricao_tuss: p.descricao_tuss,
      requer_laudo: bool(p.requer_laudo),
      possui_imagens: bool(p.possui_imagens),
      ativo: bool(p.ativo),
    })),
  };
}

export const conveniosQuery = z.object({ q: z.string().optional(), ativo, ...pageFields });

export async function listConvenios(db: Db, f: z.infer<typeof conveniosQuery>) {
  let q = db.selectFrom('convenios');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  if (f.q) q = q.where(sql<boolean>`nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  const { rows, total } = await paginate(
    q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  );
  const ids = rows.map((r) => r.id);
  const planos = ids.length ? await db.selectFrom('planos').selectAll().where('convenio_id', 'in', ids).orderBy('nome').orderBy('id').execute() : [];
  return {
    total,
    data: rows.map((c) => ({
      id: c.id,
      nome: c.nome,
      abreviacao: c.abreviacao,
      codigo_ans: c.codigo_ans,
      ativo: bool(c.ativo),
      planos: planos.filter((p) => p.convenio_id === c.id).map((p) => ({ id: p.id, nome: p.nome, codigo_ans: p.codigo_ans, ativo: bool(p.ativo) })),
    })),
  };
}

export const cidsQuery = z.object({ q: z.string().optional(), ...pageFields });

/** ICD-10 search: code prefix (dot optional) or name contains. */
export async function listCids(db: Db, f: z.infer<typeof cidsQuery>) {
  const needle = f.q?.trim();
  if (!needle) throw new BackendError('VAL_INVALID_PARAM', 'Parametro q obrigatorio.', { field: 'q' });
  const code = needle.toUpperCase().replace('.', '');
  const q = db
    .selectFrom('cids')
    .where(({ or }) =>
      or([
        sql<boolean>`replace(codigo, '.', '') LIKE ${likePrefix(code)} ESCAPE '\\'`,
        sql<boolean>`nome LIKE ${`%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`,
      ]),
    );
  const { rows, total } = await paginate(
    q.selectAll().orderBy('codigo').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  );
  return { total, data: rows.map((c) => ({ id: c.id, codigo: c.codigo, nome: c.nome })) };
}

export const simpleCatalogQuery = z.object({ ativo, ...optionalPage });

export async function listUnidades(db: Db, f: z.infer<typeof simpleCatalogQuery>) {
  let q = db.selectFrom('unidades');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  const { rows, total } = await paginate(
    q.selectAll().orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  );
  return {
    total,
    data: rows.map((u) => ({ id: u.id, nome: u.nome, abreviacao: u.abreviacao, cidade: u.cidade ?? '', uf: u.uf ?? '', ativo: bool(u.ativo) })),
  };
}

export async function listComplementos(db: Db, f: z.infer<typeof simpleCatalogQuery>) {
  let q = db.selectFrom('complementos');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  const { rows, total } = await paginate(
    q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  );
  return { total, data: rows.map((c) => ({ id: c.id, nome: c.nome, ativo: bool(c.ativo) })) };
}

export async function listGruposLaudos(db: Db, f: z.infer<typeof simpleCatalogQuery>) {
  let q = db.selectFrom('grupos_laudos');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  const { rows, total } = await paginate(
    q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  );
  const ids = rows.map((r) => r.id);
  const membros = ids.length
    ? await db
        .selectFrom('grupos_laudos_medicos as g')
        .innerJoin('medicos as m', 'm.id', 'g.medico_id')
        .select(['g.grupo_laudo_id', 'm.id', 'm.nome'])
        .where('g.grupo_laudo_id', 'in', ids)
        .orderBy('m.nome')
        .execute()
    : [];
  return {
    total,
    data: rows.map((g) => ({
      id: g.id,
      nome: g.nome,
      ativo: bool(g.ativo),
      medicos: membros.filter((m) => m.grupo_laudo_id === g.id).map((m) => ({ id: m.id, nome: m.nome })),
    })),
  };
}
