import { NoResultError, SelectQueryNode, type Selectable } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { queryRows } from '../db/statements.ts';
import type { ClinicaConfigTable } from '../db/tables/clinica-config.ts';
import { BackendError } from '../errors.ts';

/** Hand-written (every patient and exam create reads it): building the Kysely query cost more than running it. */
export async function getClinicaConfig(db: Db): Promise<Selectable<ClinicaConfigTable>> {
  const [row] = await queryRows<Selectable<ClinicaConfigTable>>(db, 'SELECT * FROM clinica_config WHERE id = 1', []);
  // The error executeTakeFirstOrThrow gave (the row is inserted by the first migration).
  if (!row) throw new NoResultError(SelectQueryNode.create());
  return row;
}

export function settingsView(c: Awaited<ReturnType<typeof getClinicaConfig>>) {
  return {
    nome: c.nome,
    cpf_obrigatorio: c.cpf_obrigatorio === 1,
    celular_obrigatorio: c.celular_obrigatorio === 1,
    solicitante_obrigatorio: c.solicitante_obrigatorio === 1,
    medico_laudo_obrigatorio: c.medico_laudo_obrigatorio === 1,
    central_laudos_disponivel: c.central_laudos_disponivel === 1,
    defaults: {
      unidade_id: c.default_unidade_id,
      medico_exame_id: c.default_medico_exame_id,
      medico_laudo_id: c.default_medico_laudo_id,
      convenio_id: c.default_convenio_id,
    },
  };
}

const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => (v ? 1 : 0));
const defaultId = z.number().int().positive().nullable();

export const settingsPatchSchema = z.object({
  nome: z.string().min(1).max(200).optional(),
  cpf_obrigatorio: flag.optional(),
  celular_obrigatorio: flag.optional(),
  solicitante_obrigatorio: flag.optional(),
  medico_laudo_obrigatorio: flag.optional(),
  central_laudos_disponivel: flag.optional(),
  defaults: z
    .object({
      unidade_id: defaultId.optional(),
      medico_exame_id: defaultId.optional(),
      medico_laudo_id: defaultId.optional(),
      convenio_id: defaultId.optional(),
    })
    .optional(),
});

/** Exam-create defaults must point at rows that could be used on an exam (active doctor with the role). */
async function checkDefaults(db: Db, d: NonNullable<z.infer<typeof settingsPatchSchema>['defaults']>) {
  const fail = (field: string, msg: string) => new BackendError('INVALID_REFERENCE', msg, { field: `defaults.${field}` });
  if (d.unidade_id && !(await db.selectFrom('unidades').select('id').where('id', '=', d.unidade_id).executeTakeFirst())) throw fail('unidade_id', 'Unidade inexistente.');
  if (d.convenio_id && !(await db.selectFrom('convenios').select('id').where('id', '=', d.convenio_id).executeTakeFirst())) throw fail('convenio_id', 'Convenio inexistente.');
  const medico = (id: number) => db.selectFrom('medicos').selectAll().where('id', '=', id).where('ativo', '=', 1).executeTakeFirst();
  if (d.medico_exame_id && !(await medico(d.medico_exame_id))?.papel_exame) throw fail('medico_exame_id', 'Medico executante inexistente ou sem permissao para executar exames.');
  if (d.medico_laudo_id && !(await medico(d.medico_laudo_id))?.papel_laudo) throw fail('medico_laudo_id', 'Medico laudador inexistente ou sem permissao para laudar.');
}

export async function patchClinicaConfig(db: Db, input: z.infer<typeof settingsPatchSchema>, now: string) {
  const { defaults, ...flags } = input;
  if (defaults) await checkDefaults(db, defaults);
  const set: Record<string, unknown> = { ...flags, atualizado_em: now };
  if (defaults) {
    for (const [k, v] of Object.entries(defaults)) if (v !== undefined) set[`default_${k}`] = v;
  }
  await db.updateTable('clinica_config').set(set).where('id', '=', 1).execute();
  return getClinicaConfig(db);
}
