import type { Generated } from 'kysely';

export interface UnidadesTable {
  id: Generated<number>;
  nome: string;
  abreviacao: Generated<string>;
  cnpj: string | null;
  cidade: string | null;
  uf: string | null;
  ativo: Generated<number>;
}
