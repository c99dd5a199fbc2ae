import { z } from 'zod';
import { emptyQuery, flagQuery, paginationQuery, queryObject } from './params.ts';
import { documented, trimmedLength } from './wire.ts';

/** Prefix/search text: trimmed, then at least `min` chars. */
export const searchText = (min: number) =>
  documented(
    z
      .string()
      .transform((v) => v.trim())
      .pipe(z.string().min(min, `Informe ao menos ${min} caracteres.`).max(100, 'Deve ter no maximo 100 caracteres.')),
    { replace: trimmedLength(min, 100, { printable: true }) },
  );

/** `ativo` defaulting to 1 (only active records unless `ativo=0`). */
export const activeByDefault = () => documented(flagQuery.default(true), { json: { default: 1 } });

export const procedimentosQuery = queryObject({ q: searchText(2).optional(), ativo: activeByDefault(), ...paginationQuery });
export const conveniosQuery = queryObject({ q: searchText(2).optional(), ativo: flagQuery.optional(), ...paginationQuery });
export const cidsQuery = queryObject({ q: searchText(2), ...paginationQuery });
/** Units, complements and report groups: small catalogs returned whole, no parameters. */
export const wholeCatalogQuery = emptyQuery;

export const procedimentoItem = z.object({
  id: z.number().int(),
  nome: z.string(),
  abreviacao: z.string(),
  codigo_tuss: z.string(),
  descricao_tuss: z.string(),
  requer_laudo: z.boolean(),
  possui_imagens: z.boolean(),
  ativo: z.boolean(),
});

export const convenioItem = z.object({
  id: z.number().int(),
  nome: z.string(),
  abreviacao: z.string(),
  codigo_ans: z.string(),
  ativo: z.boolean(),
  planos: z.array(z.object({ id: z.number().int(), nome: z.string(), codigo_ans: z.string(), ativo: z.boolean() })),
});

export const cidItem = z.object({ id: z.number().int(), codigo: z.string(), nome: z.string() });

export const unidadeItem = z.object({
  id: z.number().int(),
  nome: z.string(),
  abreviacao: z.string(),
  cidade: z.string(),
  uf: z.string(),
  ativo: z.boolean(),
});

export const complementoItem = z.object({ id: z.number().int(), nome: z.string(), ativo: z.boolean() });

export const grupoLaudoItem = z.object({
  id: z.number().int(),
  nome: z.string(),
  ativo: z.boolean(),
  medicos: z.array(z.object({ id: z.number().int(), nome: z.string() })),
});
