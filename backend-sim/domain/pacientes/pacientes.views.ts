import { enderecoView } from '../endereco.ts';
import type { z } from 'zod';
import { JsonPageQuery } from '../../db/json-page.ts';
import {
  type pacienteListItem as pacienteListItemWire,
  pacienteListItem as pacienteListItemSchema,
} from '../../../contracts/schemas/pacientes.ts';
import type { PacienteListRow, PacienteRow } from './pacientes.repository.ts';

const SEXO_CURTO: Record<string, 'M' | 'F'> = { MAS: 'M', FEM: 'F' };
/**
 * The detail's `sexo` (create, patch and read answers): the spec's output values are `M`/`F`/`MAS`/`FEM` or
 * null, so `OUT` (an input value only) reads as null, like in the list.
 */
const SEXO_DETALHE = new Set(['M', 'F', 'MAS', 'FEM']);
const sexoDetalhe = (sexo: string | null): 'M' | 'F' | 'MAS' | 'FEM' | null =>
  sexo !== null && SEXO_DETALHE.has(sexo) ? (sexo as 'M' | 'F' | 'MAS' | 'FEM') : null;

/** Typed by the public contract: the gateway parses these answers with the same schemas. */
export function pacienteListItem(p: PacienteListRow): z.input<typeof pacienteListItemWire> {
  return {
    id: p.id,
    nome: p.nome,
    cpf: p.cpf,
    data_nascimento: p.data_nascimento,
    sexo: p.sexo ? (SEXO_CURTO[p.sexo] ?? null) : null,
    telefone: p.telefone,
    email: p.email,
    ativo: p.ativo === 1,
    criado_em: p.criado_em,
  };
}

/** `pacienteListItem` written by SQLite from the list's columns (decisions L32-1). */
export const PACIENTE_LIST_JSON = new JsonPageQuery(
  pacienteListItemSchema,
  {
    id: 'id',
    nome: 'nome',
    cpf: 'cpf',
    data_nascimento: 'data_nascimento',
    sexo: "CASE sexo WHEN 'MAS' THEN 'M' WHEN 'FEM' THEN 'F' END",
    telefone: 'telefone',
    email: 'email',
    ativo: 'ativo = 1',
    criado_em: 'criado_em',
  },
  'pacientes',
);

/** The rows a detail names (estado civil, cidade, convenio), absent when the patient has none or they are gone. */
export interface DetailLookups {
  estadoCivil: { id: number; nome: string } | undefined;
  cidade: { nome: string } | undefined;
  convenio: { nome: string } | undefined;
}

/** Patient detail; `convenioShape` = 'read' ({id,nome,numero_carteirinha}) or 'write' ({id,plano_id,numero_carteirinha}). */
export function pacienteDetail(
  p: PacienteRow,
  convenioShape: 'read' | 'write',
  { estadoCivil, cidade, convenio }: DetailLookups,
) {
  return {
    id: p.id,
    saudacao: p.saudacao ?? '',
    nome: p.nome,
    nome_registro: p.nome_registro ?? '',
    numero_prontuario: p.numero_prontuario,
    cpf: p.cpf,
    rg: p.rg,
    data_nascimento: p.data_nascimento,
    sexo: sexoDetalhe(p.sexo),
    estado_civil: estadoCivil ? { id: estadoCivil.id, nome: estadoCivil.nome } : null,
    telefone: p.telefone,
    celular: p.celular,
    email: p.email,
    endereco: enderecoView(p, cidade),
    convenio: p.convenio_id
      ? convenioShape === 'read'
        ? { id: p.convenio_id, nome: convenio?.nome ?? '', numero_carteirinha: p.convenio_numero_carteirinha ?? '' }
        : { id: p.convenio_id, plano_id: p.convenio_plano_id, numero_carteirinha: p.convenio_numero_carteirinha ?? '' }
      : null,
    ativo: p.ativo === 1,
    criado_em: p.criado_em,
    atualizado_em: p.atualizado_em,
    criado_por_chave_id: p.criado_por_chave_id,
    atualizado_por_chave_id: p.atualizado_por_chave_id,
  };
}
