import type { Generated } from 'kysely';

/** System-user permission groups a doctor belongs to. */
export interface GruposPermissaoTable {
  id: Generated<number>;
  nome: string;
}
