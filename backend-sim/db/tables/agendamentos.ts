import type { Generated } from 'kysely';

export interface AgendamentosTable {
  id: Generated<number>;
  agenda_config_id: number;
  paciente_id: number | null;
  medico_id: number | null;
  sala_id: number | null;
  unidade_id: number;
  procedimento_id: number;
  convenio_id: number;
  plano_id: number | null;
  data_agendamento: string;
  hora_inicio: string;
  hora_fim: string;
  status: string;
  encaixe: Generated<number>;
  observacoes: string | null;
  /** Snapshots of appointments created without paciente_id; never returned. */
  paciente_nome: string | null;
  paciente_cpf: string | null;
  paciente_celular: string | null;
  paciente_nascimento: string | null;
  paciente_sexo: string | null;
  paciente_email: string | null;
  cancelado_em: string | null;
  cancelado_motivo: string | null;
  cancelado_por_chave_id: number | null;
  reagendado_em: string | null;
  reagendado_motivo: string | null;
  criado_em: string;
  criado_por_chave_id: number | null;
  atualizado_em: string | null;
}

export interface AgendamentoHistoricoTable {
  id: Generated<number>;
  agendamento_id: number;
  status_anterior: string | null;
  status_novo: string;
  data_hora: string;
  observacao: string | null;
  /** API | SISTEMA; the user/key id is kept but never exposed. */
  origem: string;
  chave_id: number | null;
}
