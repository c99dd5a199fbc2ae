import { enderecoView } from '../endereco.ts';
import type { MedicoRow } from './medicos.repository.ts';
import type { Papel } from '../../../contracts/schemas/medicos.ts';
import type { z } from 'zod';
import type {
  medicoDetail as medicoDetailWire,
  medicoListItem as medicoListItemWire,
} from '../../../contracts/schemas/medicos.ts';

export function papeisOf(m: Pick<MedicoRow, 'papel_exame' | 'papel_laudo' | 'papel_solicitante'>): Papel[] {
  const out: Papel[] = [];
  if (m.papel_exame) out.push('EXAME');
  if (m.papel_laudo) out.push('LAUDO');
  if (m.papel_solicitante) out.push('SOLICITANTE');
  return out;
}

/** Only the last 2 characters stay visible. */
export function mask(v: string | null): string | null {
  if (!v) return v;
  return v.length <= 2 ? v : '*'.repeat(v.length - 2) + v.slice(-2);
}

/** Typed by the public contract: the gateway parses these answers with the same schemas. */
export function medicoListItem(m: MedicoRow & { saudacao_nome: string | null }): z.input<typeof medicoListItemWire> {
  return {
    id: m.id,
    nome: m.nome,
    saudacao: m.saudacao_nome ?? '',
    conselho: { sigla: m.conselho_sigla ?? '', numero: m.conselho_numero ?? '', uf: m.conselho_uf ?? '' },
    especialidade: m.especialidade ?? '',
    papeis: papeisOf(m),
    ativo: m.ativo === 1,
  };
}

export function medicoDetail(
  m: MedicoRow,
  { saudacao, cidade }: { saudacao: { nome: string } | undefined; cidade: { nome: string } | undefined },
): z.input<typeof medicoDetailWire> {
  return {
    id: m.id,
    nome: m.nome,
    nome_registro: m.nome_registro ?? '',
    saudacao: saudacao?.nome ?? '',
    saudacao_id: m.saudacao_id,
    cpf: mask(m.cpf),
    rg: mask(m.rg),
    data_nascimento: m.data_nascimento,
    sexo: m.sexo,
    conselho: { tipo: m.conselho_sigla ?? '', numero: m.conselho_numero ?? '', uf: m.conselho_uf ?? '' },
    especialidade: m.especialidade ?? '',
    papeis: papeisOf(m),
    grupo_permissao_id: m.grupo_permissao_id,
    usuario: m.usuario,
    telefone: m.telefone,
    celular: m.celular,
    email: m.email,
    endereco: enderecoView(m, cidade),
    cor_agenda: m.cor_agenda ?? '',
    ativo: m.ativo === 1,
  };
}
