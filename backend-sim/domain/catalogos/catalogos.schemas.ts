import { z } from 'zod';
import { pageFields, wholeListFields } from '../../lib/schemas.ts';

const ativo = z.enum(['0', '1']).optional();

export const procedimentosQuery = z.object({ q: z.string().optional(), ativo, ...pageFields });
export const conveniosQuery = z.object({ q: z.string().optional(), ativo, ...pageFields });
export const cidsQuery = z.object({ q: z.string().optional(), ...pageFields });
/** Catalogs without pagination in the spec return everything unless the gateway sends limit/offset. */
export const simpleCatalogQuery = z.object({ ativo, ...wholeListFields });

export type ProcedimentosFilter = z.infer<typeof procedimentosQuery>;
export type ConveniosFilter = z.infer<typeof conveniosQuery>;
export type CidsFilter = z.infer<typeof cidsQuery>;
export type SimpleCatalogFilter = z.infer<typeof simpleCatalogQuery>;
