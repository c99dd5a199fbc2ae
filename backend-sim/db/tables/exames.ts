import type { Generated } from 'kysely';
import type { ExclusaoColumns } from './columns.ts';

export interface ExamesTable extends ExclusaoColumns {
  id: Generated<number>;
  paciente_id: number;
  procedimento_id: number;
  unidade_id: number | null;
  medico_exame_id: number | null;
  medico_laudo_id: number | null;
  medico_solicitante_id: number | null;
  grupo_laudo_id: number | null;
  convenio_id: number | null;
  plano_id: number | null;
  cid_id: number | null;
  complemento_id: number | null;
  data_realizado: string;
  hora_realizado: string | null;
  numero: string | null;
  referencia: string | null;
  observacoes: string | null;
  requer_laudo: Generated<number>;
  prioridade: Generated<number>;
  /** Object key of the first exam file; extra files live in exame_arquivos. */
  arquivo_exame_key: string | null;
  /** Object key of the report PDF attached to the exam; drives status_laudo. */
  arquivo_laudo_key: string | null;
  /** Report issued by the external report center: deletion is refused (409). */
  laudo_central: Generated<number>;
  /** Exam exported to the external center (deletion must be synchronized). */
  exportado_central: Generated<number>;
  criado_em: string;
  atualizado_em: string | null;
  criado_por_chave_id: number | null;
}

/**
 * Live exams per realization date: all ('todos', 0), per doctor in any role ('medico', id), per procedure
 * ('procedimento', id), per report status ('status', 0 PENDENTE | 1 EMITIDO | 2 ASSINADO). Kept by triggers.
 */
export interface ExamesContagemTable {
  filtro: 'todos' | 'medico' | 'procedimento' | 'status';
  valor: number;
  data: string;
  n: number;
}
