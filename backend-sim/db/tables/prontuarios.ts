import type { Generated } from 'kysely';

export interface ProntuariosTable {
  id: Generated<number>;
  paciente_id: number;
  medico_id: number | null;
  data_emissao: string;
  mensagem: string;
  exibir: Generated<number>;
  rascunho: Generated<number>;
  criado_em: string;
  criado_por_chave_id: number | null;
}

/** Attachments belong to the patient; prontuario_id records which record brought them. */
export interface ProntuarioAnexosTable {
  id: Generated<number>;
  paciente_id: number;
  prontuario_id: number | null;
  descricao: string;
  nome_arquivo: string;
  extensao: string;
  tamanho: number;
  object_key: string;
  criado_em: string;
}
