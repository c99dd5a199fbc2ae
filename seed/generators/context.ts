import type SQLite from 'better-sqlite3';
import * as D from '../data.ts';
import type { Random } from '../random.ts';
import type { MedicoIds, SeedProgress } from '../types.ts';

/** What every generator of one seed run shares. Generators run in a fixed order on one PRNG: same seed, same rows. */
export interface SeedContext {
  sqlite: SQLite.Database;
  rnd: Random;
  /** Profile `rich` (realistic names and optional fields) or `synthetic` (numbered names). */
  rich: boolean;
  /** The instant all dates derive from, and its date. */
  ref: Date;
  refDate: string;
  /** Progress of a phase of `total` steps. */
  report(phase: SeedProgress['phase'], total: number): (done: number) => void;
}

/** The catalog rows later generators draw from. */
export interface Catalogos {
  /** Procedures that need a report (what exams and agendas are drawn from). */
  procedimentoIds: number[];
  procedimentosComImagem: number[];
  planosPorConvenio: Map<number, number[]>;
  medicoIds: MedicoIds;
}

export const ascii = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');

/**
 * A made-up address in the city `D.CIDADES[cidadeIdx]`, as the values of ENDERECO_COLUMNS in their order;
 * street numbers from 1 to `maxNumero`.
 */
export function enderecoSintetico(rnd: Random, cidadeIdx: number, maxNumero: number): unknown[] {
  const [, uf, cepPrefix] = D.CIDADES[cidadeIdx];
  return [
    cepPrefix + rnd.digits(3),
    rnd.pick(D.LOGRADOUROS),
    String(rnd.int(1, maxNumero)),
    rnd.pick(D.COMPLEMENTOS_END),
    rnd.pick(D.BAIRROS),
    cidadeIdx + 1,
    uf,
  ];
}
