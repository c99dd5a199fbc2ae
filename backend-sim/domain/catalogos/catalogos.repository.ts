import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { pageWithTotal } from '../paginas.ts';
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

export async function listProcedimentos(db: Db, f: ProcedimentosFilter) {
  let q = db.selectFrom('procedimentos').where('ativo', '=', f.ativo === '0' ? 0 : 1);
  if (f.q) q = q.where(sql<boolean>`nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  return pageWithTotal(q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(), q);
}

export async function listConvenios(db: Db, f: ConveniosFilter) {
  let q = db.selectFrom('convenios');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  if (f.q) q = q.where(sql<boolean>`nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  return pageWithTotal(q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(), q);
}

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
export async function listCids(db: Db, needle: string, f: CidsFilter) {
  const code = needle.toUpperCase().replace('.', '');
  const q = db
    .selectFrom('cids')
    .where(({ or }) =>
      or([
        sql<boolean>`replace(codigo, '.', '') LIKE ${likePrefix(code)} ESCAPE '\\'`,
        sql<boolean>`nome LIKE ${`%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`,
      ]),
    );
  return pageWithTotal(q.selectAll().orderBy('codigo').limit(f.limit).offset(f.offset).execute(), q);
}

export async function listUnidades(db: Db, f: SimpleCatalogFilter) {
  let q = db.selectFrom('unidades');
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  return pageWithTotal(q.selectAll().orderBy('id').limit(f.limit).offset(f.offset).execute(), q);
}

/** A small catalog (id, nome, ativo) by name. */
export async function listByName(db: Db, table: 'complementos' | 'grupos_laudos', f: SimpleCatalogFilter) {
  let q = db.selectFrom(table);
  if (f.ativo) q = q.where('ativo', '=', Number(f.ativo));
  return pageWithTotal(q.selectAll().orderBy('nome').orderBy('id').limit(f.limit).offset(f.offset).execute(), q);
}

/** The doctors of these report groups, by name. */
export async function listGrupoMembros(db: Db, grupoIds: number[]) {
  return grupoIds.length
    ? db
        .selectFrom('grupos_laudos_medicos as g')
        .innerJoin('medicos as m', 'm.id', 'g.medico_id')
        .select(['g.grupo_laudo_id', 'm.id', 'm.nome'])
        .where('g.grupo_laudo_id', 'in', grupoIds)
        .orderBy('m.nome')
        .execute()
    : [];
}
