import type { Generated } from 'kysely';

/** Groups of reporting doctors (production-based reporting). */
export interface GruposLaudosTable {
  id: Generated<number>;
  nome: string;
  ativo: Generated<number>;
}

export interface GruposLaudosMedicosTable {
  grupo_laudo_id: number;
  medico_id: number;
}
