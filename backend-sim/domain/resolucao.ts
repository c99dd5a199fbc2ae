import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';

/**
 * Exact-match lookups behind the aliases of exam create (spec 02 § POST /v1/exames, "exact-equality
 * match after normalization"). The gateway owns the resolution rules (precedence, conflicts, severity);
 * these only answer "which records match", at most CANDIDATES of them plus the total.
 * Only active records match: a retired procedure or doctor is never what an alias means.
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

export const pacienteQuery = z.object({ cpf: z.string().regex(/^\d{11}$/) });
export async function pacientesPorCpf(db: Db, q: z.infer<typeof pacienteQuery>): Promise<Matches> {
  const rows = await db.selectFrom('pacientes').select(['id', 'nome']).where('cpf', '=', q.cpf).orderBy('id').execute();
  return limited(rows);
}

export const procedimentoQuery = z.union([z.object({ codigo_tuss: z.string().regex(/^\d{8}$/) }), z.object({ abreviacao: z.string().min(1) })]);
export async function procedimentos(db: Db, q: z.infer<typeof procedimentoQuery>): Promise<Matches> {
  const base = db.selectFrom('procedimentos').select(['id', 'nome', 'abreviacao']).where('ativo', '=', 1).orderBy('id');
  if ('codigo_tuss' in q) return limited(await base.where('codigo_tuss', '=', q.codigo_tuss).execute());
  const wanted = normalizeName(q.abreviacao);
  return limited((await base.execute()).filter((p) => normalizeName(p.abreviacao) === wanted));
}

export const convenioQuery = z.union([z.object({ codigo_ans: z.string().regex(/^\d{6}$/) }), z.object({ nome: z.string().min(1) })]);
export async function convenios(db: Db, q: z.infer<typeof convenioQuery>): Promise<Matches> {
  const base = db.selectFrom('convenios').select(['id', 'nome']).where('ativo', '=', 1).orderBy('id');
  // Only insurers with the ANS code filled can match it (the format rule already excludes "").
  if ('codigo_ans' in q) return limited(await base.where('codigo_ans', '=', q.codigo_ans).execute());
  const wanted = normalizeName(q.nome);
  return limited((await base.execute()).filter((c) => normalizeName(c.nome) === wanted));
}

const PAPEIS = { EXAME: 'papel_exame', LAUDO: 'papel_laudo', SOLICITANTE: 'papel_solicitante' } as const;
export const medicoQuery = z.object({
  crm: z.string().regex(/^\d{1,10}$/),
  uf: z.string().regex(/^[A-Z]{2}$/).optional(),
  papel: z.enum(['EXAME', 'LAUDO', 'SOLICITANTE']),
});
/** CRM number compared without leading zeros; the state only when the alias carries one; active doctors with the role. */
export async function medicosPorCrm(db: Db, q: z.infer<typeof medicoQuery>): Promise<Matches> {
  let query = db
    .selectFrom('medicos')
    .select(['id', 'nome'])
    .where('ativo', '=', 1)
    .where(PAPEIS[q.papel], '=', 1)
    .where(sql<boolean>`ltrim(trim(conselho_numero), '0') = ltrim(${q.crm}, '0')`)
    .where(sql<boolean>`coalesce(upper(trim(conselho_sigla)), 'CRM') IN ('CRM', '')`);
  if (q.uf) query = query.where(sql<boolean>`upper(trim(conselho_uf)) = ${q.uf}`);
  return limited(await query.orderBy('id').execute());
}

export const unidadeQuery = z.object({ nome: z.string().min(1) });
export async function unidadesPorNome(db: Db, q: z.infer<typeof unidadeQuery>): Promise<Matches> {
  const wanted = normalizeName(q.nome);
  const rows = await db.selectFrom('unidades').select(['id', 'nome']).where('ativo', '=', 1).orderBy('id').execute();
  return limited(rows.filter((u) => normalizeName(u.nome) === wanted));
}
