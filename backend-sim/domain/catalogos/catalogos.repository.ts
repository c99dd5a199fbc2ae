import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { JsonPageQuery } from '../../db/json-page.ts';
import { jsonPageWithTotal, type KyselyList, pageWithTotal } from '../paginas.ts';
import type {
  CidsFilter,
  ConveniosFilter,
  ProcedimentosFilter,
  SimpleCatalogFilter,
} from '../../../contracts/backend/catalogos.ts';

/** LIKE with the user's text taken literally ('%' and '_' escaped); SQLite LIKE is ASCII case-insensitive. */
export function likePrefix(s: string): string {
  return `${s.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function procedimentos(db: Db, f: ProcedimentosFilter) {
  let q = db.selectFrom('procedimentos').where('ativo', '=', f.ativo === '0' ? 0 : 1);
  if (f.q) q = q.where(sql<boolean>`nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  const page = q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset);
  return { page, filtered: q, orderBy: 'nome, id' } satisfies KyselyList;
}
export async function listProcedimentos(db: Db, f: ProcedimentosFilter) {
  const list = procedimentos(db, f);
  return pageWithTotal(list.page.execute(), list.filtered);
}
export const listProcedimentosJson = (db: Db, f: ProcedimentosFilter, json: JsonPageQuery) =>
  jsonPageWithTotal(db, json, procedimentos(db, f));

function convenios(db: Db, f: ConveniosFilter) {
  let q = db.selectFrom('convenios');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  if (f.q) q = q.where(sql<boolean>`nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  const page = q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset);
  return { page, filtered: q, orderBy: 'nome, id' } satisfies KyselyList;
}
export async function listConvenios(db: Db, f: ConveniosFilter) {
  const list = convenios(db, f);
  return pageWithTotal(list.page.execute(), list.filtered);
}
export const listConveniosJson = (db: Db, f: ConveniosFilter, json: JsonPageQuery) =>
  jsonPageWithTotal(db, json, convenios(db, f));

/** The plans of these insurers. */
export async function listPlanos(db: Db, convenioIds: number[]) {
  return convenioIds.length
    ? db
        .selectFrom('planos')
        .selectAll()
        .where('convenio_id', 'in', convenioIds)
        .orderBy('nome')
        .orderBy('id')
        .execute()
    : [];
}

/** ICD-10 search: code prefix (dot optional) or name contains. */
function cids(db: Db, needle: string, f: CidsFilter) {
  const code = needle.toUpperCase().replace('.', '');
  const q = db
    .selectFrom('cids')
    .where(({ or }) =>
      or([
        sql<boolean>`replace(codigo, '.', '') LIKE ${likePrefix(code)} ESCAPE '\\'`,
        sql<boolean>`nome LIKE ${`%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`,
      ]),
    );
  return { page: q.selectAll().orderBy('codigo').limit(f.limit).offset(f.offset), filtered: q, orderBy: 'codigo' };
}
export async function listCids(db: Db, needle: string, f: CidsFilter) {
  const list = cids(db, needle, f);
  return pageWithTotal(list.page.execute(), list.filtered);
}
export const listCidsJson = (db: Db, needle: string, f: CidsFilter, json: JsonPageQuery) =>
  jsonPageWithTotal(db, json, cids(db, needle, f));

function unidades(db: Db, f: SimpleCatalogFilter) {
  let q = db.selectFrom('unidades');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  return { page: q.selectAll().orderBy('id').limit(f.limit).offset(f.offset), filtered: q, orderBy: 'id' };
}
export async function listUnidades(db: Db, f: SimpleCatalogFilter) {
  const list = unidades(db, f);
  return pageWithTotal(list.page.execute(), list.filtered);
}
export const listUnidadesJson = (db: Db, f: SimpleCatalogFilter, json: JsonPageQuery) =>
  jsonPageWithTotal(db, json, unidades(db, f));

/** A small catalog (id, nome, ativo) by name. */
function byName(db: Db, table: 'complementos' | 'grupos_laudos', f: SimpleCatalogFilter) {
  let q = db.selectFrom(table);
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  const page = q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset);
  return { page, filtered: q, orderBy: 'nome, id' };
}
export async function listByName(db: Db, table: 'complementos' | 'grupos_laudos', f: SimpleCatalogFilter) {
  const list = byName(db, table, f);
  return pageWithTotal(list.page.execute(), list.filtered);
}
export const listByNameJson = (
  db: Db,
  table: 'complementos' | 'grupos_laudos',
  f: SimpleCatalogFilter,
  json: JsonPageQuery,
) => jsonPageWithTotal(db, json, byName(db, table, f));

/** The doctors of these report groups, by name. */
export async function listGrupoMembros(db: Db, grupoIds: number[]) {
  return grupoIds.length
    ? db
        .selectFrom('grupos_laudos_medicos as g')
        .innerJoin('medicos as m', 'm.id', 'g.medico_id')
        .select(['g.grupo_laudo_id', 'm.id', 'm.nome'])
        .where('g.grupo_laudo_id', 'in', grupoIds)
        .orderBy('m.nome')
        .orderBy('m.id')
        .execute()
    : [];
}
