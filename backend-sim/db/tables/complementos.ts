import type { Generated } from 'kysely';

export interface ComplementosTable {
  id: Generated<number>;
  nome: string;
  ativo: Generated<number>;
}
