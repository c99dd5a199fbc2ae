import type { Generated } from 'kysely';

/** Cities referenced by `endereco.cidade_id` (patients) and resolved by name (doctors). */
export interface CidadesTable {
  id: Generated<number>;
  nome: string;
  uf: string;
}
