import type { Generated } from 'kysely';
import type { EnderecoColumns } from './columns.ts';

export interface PacientesTable extends EnderecoColumns {
  id: Generated<number>;
  saudacao: string | null;
  nome: string;
  nome_registro: string | null;
  numero_prontuario: string;
  cpf: string | null;
  rg: string | null;
  data_nascimento: string | null;
  /** MAS | FEM | OUT */
  sexo: string | null;
  estado_civil_id: number | null;
  telefone: string | null;
  celular: string | null;
  email: string | null;
  convenio_id: number | null;
  convenio_plano_id: number | null;
  convenio_numero_carteirinha: string | null;
  /** Portal login; unique case-insensitively (COLLATE NOCASE index). */
  usuario: string;
  /** scrypt$N$r$p$salt$hash, never returned. */
  senha_hash: string;
  senha_temporaria: Generated<number>;
  data_alteracao_senha: string | null;
  ativo: Generated<number>;
  criado_em: string;
  atualizado_em: string | null;
  criado_por_chave_id: number | null;
  atualizado_por_chave_id: number | null;
}

/** Patients per `ativo` value, kept by triggers (the search index `pacientes_nome_busca` likewise). */
export interface PacientesContagemTable {
  ativo: number;
  n: number;
}
