import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { pageWithTotal } from '../paginas.ts';
import type { MedicosTable } from '../../db/tables/medicos.ts';
import { likePrefix } from '../catalogos/catalogos.repository.ts';
import type { MedicoListFilter } from '../../../contracts/backend/medicos.ts';

export type MedicoRow = Selectable<MedicosTable>;

/** The column of each role. */
export const papelColumn = { EXAME: 'papel_exame', LAUDO: 'papel_laudo', SOLICITANTE: 'papel_solicitante' } as const;

export async function listMedicos(db: Db, f: MedicoListFilter) {
  let q = db
    .selectFrom('medicos as m')
    .leftJoin('saudacoes as s', 's.id', 'm.saudacao_id')
    .where('m.ativo', '=', f.ativo === '0' ? 0 : 1);
  if (f.q) q = q.where(sql<boolean>`m.nome LIKE ${likePrefix(f.q)} ESCAPE '\\'`);
  if (f.papel.length) q = q.where(({ or, eb }) => or(f.papel.map((p) => eb(`m.${papelColumn[p]}`, '=', 1))));
  return pageWithTotal(
    q
      .selectAll('m')
      .select('s.nome as saudacao_nome')
      .orderBy('m.nome')
      .orderBy('m.id')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    q,
  );
}

export async function findMedico(db: Db, id: number) {
  return db.selectFrom('medicos').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The names a doctor's detail shows (its greeting and city), absent when it has none. */
export async function findDetailNames(db: Db, m: MedicoRow) {
  const [saudacao, cidade] = await Promise.all([
    m.saudacao_id
      ? db.selectFrom('saudacoes').select('nome').where('id', '=', m.saudacao_id).executeTakeFirst()
      : undefined,
    m.endereco_cidade_id
      ? db.selectFrom('cidades').select('nome').where('id', '=', m.endereco_cidade_id).executeTakeFirst()
      : undefined,
  ]);
  return { saudacao, cidade };
}

/** The id of the row of `table` named `nome` (case-insensitively). */
export async function findIdByName(db: Db, table: 'saudacoes' | 'grupos_permissao', nome: string) {
  return db.selectFrom(table).select('id').where(sql<boolean>`nome = ${nome} COLLATE NOCASE`).executeTakeFirst();
}

/** A city by name (case-insensitively), within the state when one is given. */
export async function findCidadeByName(db: Db, nome: string, uf: string | null) {
  let q = db.selectFrom('cidades').select('id').where(sql<boolean>`nome = ${nome} COLLATE NOCASE`);
  if (uf) q = q.where('uf', '=', uf);
  return q.executeTakeFirst();
}

/** Another doctor with this `usuario` (case-insensitively); `selfId` is not another. */
export async function findByUsuario(db: Db, usuario: string, selfId: number | null) {
  let q = db.selectFrom('medicos').select(['id', 'nome']).where(sql<boolean>`usuario = ${usuario} COLLATE NOCASE`);
  if (selfId) q = q.where('id', '!=', selfId);
  return q.executeTakeFirst();
}

export async function insertMedico(db: Db, row: Insertable<MedicosTable>): Promise<number> {
  const { id } = await db.insertInto('medicos').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function updateMedico(db: Db, id: number, set: Updateable<MedicosTable>): Promise<void> {
  await db.updateTable('medicos').set(set).where('id', '=', id).execute();
}
