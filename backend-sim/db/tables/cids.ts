import type { Generated } from 'kysely';

/** ICD-10 codes. */
export interface CidsTable {
  id: Generated<number>;
  codigo: string;
  nome: string;
}
