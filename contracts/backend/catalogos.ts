import type { z } from 'zod';
import { cidsQuery, conveniosQuery, procedimentosQuery, wholeCatalogQuery } from '../schemas/catalogos.ts';
import { backendPage, forwarded, queryFlag, wholeList } from './forwarded.ts';

/** gateway → backend-sim: the catalog queries as backend-sim reads them (forwarded.ts). */

/** Absent `ativo`: the active procedures (the public default, 1). */
export const procedimentosForwarded = forwarded(procedimentosQuery, { ativo: queryFlag.optional(), ...backendPage });
export const conveniosForwarded = forwarded(conveniosQuery, { ativo: queryFlag.optional(), ...backendPage });
export const cidsForwarded = forwarded(cidsQuery, backendPage);
/**
 * Units, complements and report groups: no public parameter; the gateway and the console ask for the whole list
 * (`limit`). backend-sim also reads an `ativo` filter, which no caller sends today.
 */
export const wholeCatalogForwarded = forwarded(wholeCatalogQuery, { ativo: queryFlag.optional(), ...wholeList });

export type ProcedimentosFilter = z.output<typeof procedimentosForwarded>;
export type ConveniosFilter = z.output<typeof conveniosForwarded>;
export type CidsFilter = z.output<typeof cidsForwarded>;
export type SimpleCatalogFilter = z.output<typeof wholeCatalogForwarded>;
