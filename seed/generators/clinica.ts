import * as D from '../data.ts';
import type { MedicoIds, SeedSettings } from '../types.ts';
import type { SeedContext } from './context.ts';

/** The clinic's name, mandatory fields and exam-create defaults (the first unit, doctors of each role, the private insurer). */
export function seedClinica(
  { sqlite }: SeedContext,
  nome: string,
  settings: SeedSettings,
  medicoIds: MedicoIds,
  atualizadoEm: string,
): void {
  const withDefaults = settings.defaults !== false;
  sqlite
    .prepare(
      `UPDATE clinica_config SET nome = ?, cpf_obrigatorio = ?, celular_obrigatorio = ?, solicitante_obrigatorio = ?, medico_laudo_obrigatorio = ?,
       default_unidade_id = ?, default_medico_exame_id = ?, default_medico_laudo_id = ?, default_convenio_id = ?, atualizado_em = ? WHERE id = 1`,
    )
    .run(
      nome,
      settings.cpf_obrigatorio ? 1 : 0,
      settings.celular_obrigatorio ? 1 : 0,
      settings.solicitante_obrigatorio ? 1 : 0,
      settings.medico_laudo_obrigatorio ? 1 : 0,
      withDefaults ? 1 : null,
      withDefaults ? medicoIds.exame[0] : null,
      withDefaults ? medicoIds.laudo[0] : null,
      withDefaults ? D.CONVENIOS.length : null,
      atualizadoEm,
    );
}
