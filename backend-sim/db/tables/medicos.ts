import type { Generated } from 'kysely';
import type { EnderecoColumns } from './columns.ts';

/** Doctors are system users: they log in with usuario/senha and carry roles. */
export interface MedicosTable extends EnderecoColumns {
  id: Generated<number>;
  nome: string;
  nome_registro: string | null;
  saudacao_id: number | null;
  grupo_permissao_id: number | null;
  usuario: string;
  senha_hash: string;
  cpf: string | null;
  rg: string | null;
  data_nascimento: string | null;
  sexo: string | null;
  conselho_sigla: string | null;
  conselho_numero: string | null;
  conselho_uf: string | null;
  especialidade: string | null;
  papel_exame: Generated<number>;
  papel_laudo: Generated<number>;
  papel_solicitante: Generated<number>;
  telefone: string | null;
  celular: string | null;
  email: string | null;
  cor_agenda: string | null;
  ativo: Generated<number>;
  criado_em: string;
  atualizado_em: string | null;
  criado_por_chave_id: number | null;
  atualizado_por_chave_id: number | null;
}
