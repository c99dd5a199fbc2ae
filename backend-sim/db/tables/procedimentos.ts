import type { Generated } from 'kysely';

/** Procedures (TUSS); also the shared `tipo_exame` dictionary of exams. */
export interface ProcedimentosTable {
  id: Generated<number>;
  nome: string;
  abreviacao: Generated<string>;
  codigo_tuss: Generated<string>;
  descricao_tuss: Generated<string>;
  requer_laudo: Generated<number>;
  possui_imagens: Generated<number>;
  ativo: Generated<number>;
}
