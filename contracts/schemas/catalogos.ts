import { z } from 'zod';
import { emptyQuery, flagQuery, paginationQuery, queryObject, searchText } from './params.ts';
import { documented } from './wire.ts';

/** `ativo` defaulting to 1 (only active records unless `ativo=0`). */
export const activeByDefault = () => documented(flagQuery.default(true), { json: { default: 1 } });

export const procedimentosQuery = queryObject({
  q: searchText(2).optional(),
  ativo: activeByDefault(),
  ...paginationQuery,
});
export const conveniosQuery = queryObject({
  q: searchText(2).optional(),
  ativo: flagQuery.optional(),
  ...paginationQuery,
});
export const cidsQuery = queryObject({ q: searchText(2), ...paginationQuery });
/** Units, complements and report groups: small catalogs returned whole, no parameters. */
export const wholeCatalogQuery = emptyQuery;

/** A catalog entry as listed: its id and name, what the catalog adds, whether it is active, then what it lists. */
const catalogEntry = <S extends z.ZodRawShape, L extends z.ZodRawShape = Record<never, never>>(shape: S, lists?: L) =>
  z.object({ id: z.number().int(), nome: z.string(), ...shape, ativo: z.boolean(), ...(lists as L) });

export const procedimentoItem = catalogEntry({
  abreviacao: z.string(),
  codigo_tuss: z.string(),
  descricao_tuss: z.string(),
  requer_laudo: z.boolean(),
  possui_imagens: z.boolean(),
});

export const convenioItem = catalogEntry(
  { abreviacao: z.string(), codigo_ans: z.string() },
  { planos: z.array(catalogEntry({ codigo_ans: z.string() })) },
);

export const cidItem = z.object({ id: z.number().int(), codigo: z.string(), nome: z.string() });

export const unidadeItem = catalogEntry({ abreviacao: z.string(), cidade: z.string(), uf: z.string() });

export const complementoItem = catalogEntry({});

export const grupoLaudoItem = catalogEntry(
  {},
  { medicos: z.array(z.object({ id: z.number().int(), nome: z.string() })) },
);
