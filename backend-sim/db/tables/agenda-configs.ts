import type { Generated } from 'kysely';

/** An agenda belongs to a doctor or to a room, in one unit. */
export interface AgendaConfigsTable {
  id: Generated<number>;
  nome: string;
  /** medico | sala */
  tipo_vinculo: string;
  medico_id: number | null;
  sala_id: number | null;
  unidade_id: number;
  ativo: Generated<number>;
  data_inicio: string;
  data_fim: string | null;
  permite_encaixe: Generated<number>;
  /** Max appointments per day (0 = no limit); exceeding it is a BUSINESS_RULE. */
  limite_diario: Generated<number>;
  criado_em: string | null;
}

/** Weekly schedule: weekday 0 (Sunday) .. 6, hours HH:MM. */
export interface AgendaHorariosTable {
  id: Generated<number>;
  agenda_config_id: number;
  dia_semana: number;
  hora_inicio: string;
  hora_fim: string;
}

/** Procedures an agenda offers; duracao_minutos null = configured without duration. */
export interface AgendaProcedimentosTable {
  agenda_config_id: number;
  procedimento_id: number;
  duracao_minutos: number | null;
}

export interface AgendaConveniosBloqueadosTable {
  agenda_config_id: number;
  convenio_id: number;
}
