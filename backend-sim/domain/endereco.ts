/** The address columns patients and doctors share. */
export interface EnderecoColumns {
  endereco_cep: string | null;
  endereco_logradouro: string | null;
  endereco_numero: string | null;
  endereco_complemento: string | null;
  endereco_bairro: string | null;
  endereco_cidade_id: number | null;
  endereco_estado: string | null;
}

/** The `endereco` object of patient and doctor reads; `cep` and `numero` normalize `0` to "" (spec § Patient detail). */
export function enderecoView(row: EnderecoColumns, cidade: { nome: string } | null | undefined) {
  return {
    cep: row.endereco_cep && row.endereco_cep !== '0' ? row.endereco_cep : '',
    logradouro: row.endereco_logradouro ?? '',
    numero: row.endereco_numero && row.endereco_numero !== '0' ? row.endereco_numero : '',
    complemento: row.endereco_complemento ?? '',
    bairro: row.endereco_bairro ?? '',
    cidade: cidade?.nome ?? '',
    cidade_id: row.endereco_cidade_id,
    estado: row.endereco_estado ?? '',
  };
}
