import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { CidsTable } from '../../db/tables/cids.ts';
import type { ComplementosTable } from '../../db/tables/complementos.ts';
import type { ConveniosTable } from '../../db/tables/convenios.ts';
import type { GruposLaudosTable } from '../../db/tables/grupos-laudos.ts';
import type { PlanosTable } from '../../db/tables/planos.ts';
import type { ProcedimentosTable } from '../../db/tables/procedimentos.ts';
import type { UnidadesTable } from '../../db/tables/unidades.ts';
import type {
  cidItem as cidWire,
  complementoItem as complementoWire,
  convenioItem as convenioWire,
  grupoLaudoItem as grupoLaudoWire,
  procedimentoItem as procedimentoWire,
  unidadeItem as unidadeWire,
} from '../../../contracts/schemas/catalogos.ts';

/** Catalog rows as the wire shows them, typed by the public contract the gateway parses them with. */
const bool = (v: number) => v === 1;

export function procedimentoItem(p: Selectable<ProcedimentosTable>): z.input<typeof procedimentoWire> {
  return {
    id: p.id,
    nome: p.nome,
    abreviacao: p.abreviacao,
    codigo_tuss: p.codigo_tuss ?? '',
    descricao_tuss: p.descricao_tuss,
    requer_laudo: bool(p.requer_laudo),
    possui_imagens: bool(p.possui_imagens),
    ativo: bool(p.ativo),
  };
}

/** An insurer with its plans (`planos`: any plans, those of other insurers left out). */
export function convenioItem(
  c: Selectable<ConveniosTable>,
  planos: readonly Selectable<PlanosTable>[],
): z.input<typeof convenioWire> {
  return {
    id: c.id,
    nome: c.nome,
    abreviacao: c.abreviacao,
    codigo_ans: c.codigo_ans,
    ativo: bool(c.ativo),
    planos: planos
      .filter((p) => p.convenio_id === c.id)
      .map((p) => ({ id: p.id, nome: p.nome, codigo_ans: p.codigo_ans, ativo: bool(p.ativo) })),
  };
}

export const cidItem = (c: Selectable<CidsTable>): z.input<typeof cidWire> => ({
  id: c.id,
  codigo: c.codigo,
  nome: c.nome,
});

export function unidadeItem(u: Selectable<UnidadesTable>): z.input<typeof unidadeWire> {
  return {
    id: u.id,
    nome: u.nome,
    abreviacao: u.abreviacao,
    cidade: u.cidade ?? '',
    uf: u.uf ?? '',
    ativo: bool(u.ativo),
  };
}

export const complementoItem = (c: Selectable<ComplementosTable>): z.input<typeof complementoWire> => ({
  id: c.id,
  nome: c.nome,
  ativo: bool(c.ativo),
});

/** A report group with its doctors (`membros`: any groups' members, those of other groups left out). */
export function grupoLaudoItem(
  g: Selectable<GruposLaudosTable>,
  membros: readonly { grupo_laudo_id: number; id: number; nome: string }[],
): z.input<typeof grupoLaudoWire> {
  return {
    id: g.id,
    nome: g.nome,
    ativo: bool(g.ativo),
    medicos: membros.filter((m) => m.grupo_laudo_id === g.id).map((m) => ({ id: m.id, nome: m.nome })),
  };
}
