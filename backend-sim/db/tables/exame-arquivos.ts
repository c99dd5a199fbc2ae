import type { Generated } from 'kysely';

export interface ExameArquivosTable {
  id: Generated<number>;
  exame_id: number;
  /** exame | laudo */
  tipo: string;
  nome: string;
  object_key: string;
  tamanho: number;
  criado_em: string;
}
