/** Column groups several tables share (types only: each table's migration creates its own). */

/** The address of a patient or a doctor. */
export interface EnderecoColumns {
  endereco_cep: string | null;
  endereco_logradouro: string | null;
  endereco_numero: string | null;
  endereco_complemento: string | null;
  endereco_bairro: string | null;
  endereco_cidade_id: number | null;
  endereco_estado: string | null;
}

/** Soft delete of an exam and of its reports: when, why and by which API key. */
export interface ExclusaoColumns {
  excluido_em: string | null;
  excluido_motivo: string | null;
  excluido_por_chave_id: number | null;
}
