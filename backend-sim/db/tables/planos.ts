import type { Generated } from 'kysely';

export interface PlanosTable {
  id: Generated<number>;
  convenio_id: number;
  nome: string;
  codigo_ans: Generated<string>;
  ativo: Generated<number>;
}
