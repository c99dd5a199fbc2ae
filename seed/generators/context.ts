import type SQLite from 'better-sqlite3';
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
