import type { Generated } from 'kysely';

/** Single-row table (id = 1): the clinic's reference settings and exam-create defaults. */
export interface ClinicaConfigTable {
  id: number;
  nome: string;
  cpf_obrigatorio: number;
  celular_obrigatorio: number;
  solicitante_obrigatorio: number;
  medico_laudo_obrigatorio: number;
  default_unidade_id: number | null;
  default_medico_exame_id: number | null;
  default_medico_laudo_id: number | null;
  default_convenio_id: number | null;
  /** 0 simulates the external report center being down (exported exams cannot be deleted). */
  central_laudos_disponivel: Generated<number>;
  atualizado_em: string | null;
}
