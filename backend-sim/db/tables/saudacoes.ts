import type { Generated } from 'kysely';

/** Courtesy titles (Dr., Dra., Sr., ...) shared by doctors. */
export interface SaudacoesTable {
  id: Generated<number>;
  nome: string;
}
