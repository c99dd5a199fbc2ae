import type { z } from 'zod';
import type { enderecoInput } from '../../contracts/schemas/pacientes.ts';
import type { EnderecoColumns } from '../db/tables/columns.ts';
import { blank } from './campos.ts';

/** The address columns of patients and doctors, in the order their tables (and the seed's INSERTs) list them. */
export const ENDERECO_COLUMNS = [
  'endereco_cep',
  'endereco_logradouro',
  'endereco_numero',
  'endereco_complemento',
  'endereco_bairro',
  'endereco_cidade_id',
  'endereco_estado',
] as const satisfies readonly (keyof EnderecoColumns)[];

/** The `endereco` a patient or doctor write forwards (a doctor's may also name its `cidade`, read apart). */
export type EnderecoInput = z.output<typeof enderecoInput>;

/**
 * The columns a written `endereco` sets: a present object replaces the whole address, {} or null clears
 * it; `cidadeId` is the city the caller checked (or resolved from its name).
 */
export function enderecoColumns(e: EnderecoInput | null | undefined, cidadeId: number | null): EnderecoColumns {
  const v = e ?? {};
  return {
    endereco_cep: blank(v.cep),
    endereco_logradouro: blank(v.logradouro),
    endereco_numero: blank(v.numero),
    endereco_complemento: blank(v.complemento),
    endereco_bairro: blank(v.bairro),
    endereco_cidade_id: cidadeId,
    endereco_estado: enderecoEstado(v),
  };
}

/** The state as stored: upper case, or null. */
export const enderecoEstado = (v: EnderecoInput): string | null => blank(v.estado)?.toUpperCase() ?? null;

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
