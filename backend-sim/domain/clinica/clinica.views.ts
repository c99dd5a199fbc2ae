import type { ClinicaConfigRow } from './clinica.repository.ts';
import type { ClinicSettings } from '../../../contracts/backend/settings.ts';

export function settingsView(c: ClinicaConfigRow): ClinicSettings {
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
