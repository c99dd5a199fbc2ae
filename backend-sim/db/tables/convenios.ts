import type { Generated } from 'kysely';

/** Insurers (ANS registry code). */
export interface ConveniosTable {
  id: Generated<number>;
  nome: string;
  abreviacao: Generated<string>;
  codigo_ans: Generated<string>;
  ativo: Generated<number>;
}
