import type { Db } from '../../db/database.ts';
import { BackendError } from '../../errors.ts';
import { exists } from '../referencias.ts';
import * as repo from './clinica.repository.ts';
import type { SettingsPatch } from './clinica.schemas.ts';
import { settingsView } from './clinica.views.ts';

/** The clinic's settings as the gateway reads them. */
export async function getSettings(db: Db) {
  return settingsView(await repo.getClinicaConfig(db));
}

/** Exam-create defaults must point at rows that could be used on an exam (active doctor with the role). */
async function checkDefaults(db: Db, d: NonNullable<SettingsPatch['defaults']>) {
  const fail = (field: string, msg: string) =>
    new BackendError('INVALID_REFERENCE', msg, { field: `defaults.${field}` });
  if (d.unidade_id && !(await exists(db, 'unidades', d.unidade_id))) throw fail('unidade_id', 'Unidade inexistente.');
  if (d.convenio_id && !(await exists(db, 'convenios', d.convenio_id)))
    throw fail('convenio_id', 'Convenio inexistente.');
  if (d.medico_exame_id && !(await repo.findMedicoAtivo(db, d.medico_exame_id))?.papel_exame)
    throw fail('medico_exame_id', 'Medico executante inexistente ou sem permissao para executar exames.');
  if (d.medico_laudo_id && !(await repo.findMedicoAtivo(db, d.medico_laudo_id))?.papel_laudo)
    throw fail('medico_laudo_id', 'Medico laudador inexistente ou sem permissao para laudar.');
}

/** Applies the flags and defaults the patch names; answers the stored row. */
export async function patchClinicaConfig(db: Db, input: SettingsPatch, now: string) {
  const { defaults, ...flags } = input;
  if (defaults) await checkDefaults(db, defaults);
  const set: Record<string, unknown> = { ...flags, atualizado_em: now };
  if (defaults) {
    for (const [k, v] of Object.entries(defaults)) if (v !== undefined) set[`default_${k}`] = v;
  }
  await repo.updateClinicaConfig(db, set);
  return repo.getClinicaConfig(db);
}

/** The settings patch as the gateway calls it: applied, then read back. */
export async function patchSettings(db: Db, input: SettingsPatch, now: string) {
  return settingsView(await patchClinicaConfig(db, input, now));
}

/** The clinic's name (its settings row). */
export async function clinicaNome(db: Db): Promise<string> {
  return (await repo.getClinicaConfig(db)).nome;
}
