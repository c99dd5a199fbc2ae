import type { Generated } from 'kysely';
import type { ExclusaoColumns } from './columns.ts';

/** Reports; `exame_id` null means an orphan report. Never overwritten. */
export interface LaudosTable extends ExclusaoColumns {
  id: Generated<number>;
  exame_id: number | null;
  medico_laudo_id: number | null;
  data_laudo: string;
  hora_laudo: string | null;
  titulo: string | null;
  referencia: string | null;
  cid_id: number | null;
  assinado: Generated<number>;
  assinado_em: string | null;
  assinatura_tipo: string | null;
  arquivo_key: string | null;
  criado_em: string;
  atualizado_em: string | null;
  criado_por_chave_id: number | null;
}

/** Live reports per report date: all ('todos', 0), per reporting doctor ('medico', id), per signed flag ('assinado', 0 | 1). Kept by triggers. */
export interface LaudosContagemTable {
  filtro: 'todos' | 'medico' | 'assinado';
  valor: number;
  data: string;
  n: number;
}
