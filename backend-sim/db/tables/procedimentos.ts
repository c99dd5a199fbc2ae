import type { Generated } from 'kysely';

/** Procedures (TUSS); also the shared `tipo_exame` dictionary of exams. */
export interface ProcedimentosTable {
  id: Generated<number>;
  nome: string;
  abreviacao: string;
  codigo_tuss: string;
  descricao_tuss: string;
  requer_laudo: number;
  possui_imagens: number;
  ativo: number;
}
