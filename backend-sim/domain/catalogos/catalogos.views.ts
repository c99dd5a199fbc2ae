import type { Selectable } from 'kysely';
import type { z } from 'zod';
import type { CidsTable } from '../../db/tables/cids.ts';
import type { ComplementosTable } from '../../db/tables/complementos.ts';
import type { ConveniosTable } from '../../db/tables/convenios.ts';
import type { GruposLaudosTable } from '../../db/tables/grupos-laudos.ts';
import type { PlanosTable } from '../../db/tables/planos.ts';
import type { ProcedimentosTable } from '../../db/tables/procedimentos.ts';
import type { UnidadesTable } from '../../db/tables/unidades.ts';
import { JsonPageQuery } from '../../db/json-page.ts';
import * as wire from '../../../contracts/schemas/catalogos.ts';
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

/**
 * A catalog entry as listed (contracts/schemas/catalogos.ts `catalogEntry`): its id and name, what the catalog adds,
 * whether it is active, then what it lists.
 */
function catalogEntry<O extends object, L extends object = Record<never, never>>(
  row: { id: number; nome: string; ativo: number },
  own: O,
  lists?: L,
) {
  return { id: row.id, nome: row.nome, ...own, ativo: bool(row.ativo), ...(lists as L) };
}

export function procedimentoItem(p: Selectable<ProcedimentosTable>): z.input<typeof procedimentoWire> {
  return catalogEntry(p, {
    abreviacao: p.abreviacao,
    codigo_tuss: p.codigo_tuss ?? '',
    descricao_tuss: p.descricao_tuss,
    requer_laudo: bool(p.requer_laudo),
    possui_imagens: bool(p.possui_imagens),
  });
}

/** An insurer with its plans (`planos`: any plans, those of other insurers left out). */
export function convenioItem(
  c: Selectable<ConveniosTable>,
  planos: readonly Selectable<PlanosTable>[],
): z.input<typeof convenioWire> {
  return catalogEntry(
    c,
    { abreviacao: c.abreviacao, codigo_ans: c.codigo_ans },
    {
      planos: planos.filter((p) => p.convenio_id === c.id).map((p) => catalogEntry(p, { codigo_ans: p.codigo_ans })),
    },
  );
}

export const cidItem = (c: Selectable<CidsTable>): z.input<typeof cidWire> => ({
  id: c.id,
  codigo: c.codigo,
  nome: c.nome,
});

export const unidadeItem = (u: Selectable<UnidadesTable>): z.input<typeof unidadeWire> =>
  catalogEntry(u, { abreviacao: u.abreviacao, cidade: u.cidade ?? '', uf: u.uf ?? '' });

export const complementoItem = (c: Selectable<ComplementosTable>): z.input<typeof complementoWire> =>
  catalogEntry(c, {});

/** A report group with its doctors (`membros`: any groups' members, those of other groups left out). */
export function grupoLaudoItem(
  g: Selectable<GruposLaudosTable>,
  membros: readonly { grupo_laudo_id: number; id: number; nome: string }[],
): z.input<typeof grupoLaudoWire> {
  return catalogEntry(
    g,
    {},
    { medicos: membros.filter((m) => m.grupo_laudo_id === g.id).map((m) => ({ id: m.id, nome: m.nome })) },
  );
}

// ---------------------------------------------------------------- the same items written by SQLite (decisions L32-1)
// The keys' SQL over the page's columns (a derived table `page`); a nested list is correlated to `page.id`.

const entry = { id: 'id', nome: 'nome', ativo: 'ativo = 1' };

export const PROCEDIMENTO_JSON = new JsonPageQuery(
  wire.procedimentoItem,
  {
    ...entry,
    abreviacao: 'abreviacao',
    codigo_tuss: "COALESCE(codigo_tuss, '')",
    descricao_tuss: 'descricao_tuss',
    requer_laudo: 'requer_laudo = 1',
    possui_imagens: 'possui_imagens = 1',
  },
  'procedimentos',
);

export const CONVENIO_JSON = new JsonPageQuery(
  wire.convenioItem,
  {
    ...entry,
    abreviacao: 'abreviacao',
    codigo_ans: 'codigo_ans',
    planos: {
      fields: { id: 'pl.id', nome: 'pl.nome', codigo_ans: 'pl.codigo_ans', ativo: 'pl.ativo = 1' },
      from: 'FROM planos pl WHERE pl.convenio_id = page.id',
      orderBy: 'pl.nome, pl.id',
    },
  },
  'convenios',
);

export const CID_JSON = new JsonPageQuery(wire.cidItem, { id: 'id', codigo: 'codigo', nome: 'nome' }, 'cids');

export const UNIDADE_JSON = new JsonPageQuery(
  wire.unidadeItem,
  { ...entry, abreviacao: 'abreviacao', cidade: "COALESCE(cidade, '')", uf: "COALESCE(uf, '')" },
  'unidades',
);

export const COMPLEMENTO_JSON = new JsonPageQuery(wire.complementoItem, entry, 'complementos');

export const GRUPO_LAUDO_JSON = new JsonPageQuery(
  wire.grupoLaudoItem,
  {
    ...entry,
    medicos: {
      fields: { id: 'm.id', nome: 'm.nome' },
      from: 'FROM grupos_laudos_medicos g JOIN medicos m ON m.id = g.medico_id WHERE g.grupo_laudo_id = page.id',
      orderBy: 'm.nome, m.id',
    },
  },
  'grupos_laudos',
);
