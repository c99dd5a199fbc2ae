import type { Generated } from 'kysely';

/** Insurers (ANS registry code). */
export interface ConveniosTable {
  id: Generated<number>;
  nome: string;
  abreviacao: string;
  codigo_ans: string;
  ativo: number;
}
