import type { Generated } from 'kysely';

export interface EstadosCivisTable {
  id: Generated<number>;
  nome: string;
}
