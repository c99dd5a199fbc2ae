import type { Db } from '../db/database.ts';

/** Tables a write or a filter names rows of by id. */
type Referenced =
  | 'pacientes'
  | 'medicos'
  | 'procedimentos'
  | 'unidades'
  | 'convenios'
  | 'cids'
  | 'complementos'
  | 'grupos_laudos'
  | 'cidades'
  | 'saudacoes'
  | 'grupos_permissao';

/** Whether `table` holds the row `id` (a repository query every resource's rules use). */
export async function exists(db: Db, table: Referenced, id: number): Promise<boolean> {
  return !!(await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst());
}
