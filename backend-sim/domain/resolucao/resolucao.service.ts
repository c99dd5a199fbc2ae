import type { Db } from '../../db/database.ts';
import * as repo from './resolucao.repository.ts';
import type {
  ResolucaoConvenioQuery as ConvenioQuery,
  ResolucaoMedicoQuery as MedicoQuery,
  ResolucaoPacienteQuery as PacienteQuery,
  ResolucaoProcedimentoQuery as ProcedimentoQuery,
  ResolucaoUnidadeQuery as UnidadeQuery,
} from '../../../contracts/backend/exames.ts';

/**
 * Exact-match lookups behind the aliases of exam create (spec 02 § POST /v1/exames, "exact-equality
 * match after normalization"). The gateway owns the resolution rules (precedence, conflicts, severity);
 * these only answer "which records match", at most CANDIDATES of them plus the total.
 */

/** Spec § Limits: at most 10 alias candidates. */
export const CANDIDATES = 10;

export interface Matches {
  data: { id: number; nome: string }[];
  total: number;
}

/** Case, accents and runs of blanks do not matter when comparing names. */
export const normalizeName = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();

const limited = (rows: { id: number; nome: string }[]): Matches => ({
  data: rows.slice(0, CANDIDATES).map((r) => ({ id: r.id, nome: r.nome })),
  total: rows.length,
});

export async function pacientesPorCpf(db: Db, q: PacienteQuery): Promise<Matches> {
  return limited(await repo.pacientesPorCpf(db, q.cpf));
}

export async function procedimentos(db: Db, q: ProcedimentoQuery): Promise<Matches> {
  if ('codigo_tuss' in q) return limited(await repo.procedimentosPorTuss(db, q.codigo_tuss));
  const wanted = normalizeName(q.abreviacao);
  return limited((await repo.listProcedimentosAtivos(db)).filter((p) => normalizeName(p.abreviacao) === wanted));
}

export async function convenios(db: Db, q: ConvenioQuery): Promise<Matches> {
  // Only insurers with the ANS code filled can match it (the format rule already excludes "").
  if ('codigo_ans' in q) return limited(await repo.conveniosPorAns(db, q.codigo_ans));
  const wanted = normalizeName(q.nome);
  return limited((await repo.listConveniosAtivos(db)).filter((c) => normalizeName(c.nome) === wanted));
}

export async function medicosPorCrm(db: Db, q: MedicoQuery): Promise<Matches> {
  return limited(await repo.medicosPorCrm(db, q));
}

export async function unidadesPorNome(db: Db, q: UnidadeQuery): Promise<Matches> {
  const wanted = normalizeName(q.nome);
  return limited((await repo.listUnidadesAtivas(db)).filter((u) => normalizeName(u.nome) === wanted));
}
