import { NoResultError, SelectQueryNode, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { queryRows } from '../../db/statements.ts';
import type { ClinicaConfigTable } from '../../db/tables/clinica-config.ts';

export type ClinicaConfigRow = Selectable<ClinicaConfigTable>;

/** Hand-written (every patient and exam create reads it): building the Kysely query cost more than running it. */
export async function getClinicaConfig(db: Db): Promise<ClinicaConfigRow> {
  const [row] = await queryRows<ClinicaConfigRow>(db, 'SELECT * FROM clinica_config WHERE id = 1', []);
  // The error executeTakeFirstOrThrow gave (the row is inserted by the first migration).
  if (!row) throw new NoResultError(SelectQueryNode.create());
  return row;
}

export async function updateClinicaConfig(db: Db, set: Record<string, unknown>): Promise<void> {
  await db.updateTable('clinica_config').set(set).where('id', '=', 1).execute();
}

/** An active doctor, for the exam-create defaults. */
export function findMedicoAtivo(db: Db, id: number) {
  return db.selectFrom('medicos').selectAll().where('id', '=', id).where('ativo', '=', 1).executeTakeFirst();
}
