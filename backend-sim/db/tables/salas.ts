import type { Generated } from 'kysely';

export interface SalasTable {
  id: Generated<number>;
  unidade_id: number;
  nome: string;
  ativo: Generated<number>;
}
