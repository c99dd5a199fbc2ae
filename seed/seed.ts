import { createHash } from 'node:crypto';
import { hashPasswordWithSalt } from '../backend-sim/lib/password.ts';
import { isoSeconds } from '../backend-sim/lib/time.ts';
import { createTenantDatabase, tenantFile } from '../backend-sim/tenants.ts';
import {
  beginBulkLoad,
  deferSchema,
  deleteAllRows,
  endBulkLoad,
  restoreSchema,
  schemaSteps,
  type DeferredSchema,
} from './bulk-load.ts';
import { DEFAULT_TENANTS } from './default-tenants.ts';
import { seedAgenda } from './generators/agenda.ts';
import { seedCatalogos } from './generators/catalogos.ts';
import { seedClinica } from './generators/clinica.ts';
import type { Catalogos, SeedContext } from './generators/context.ts';
import { seedExames } from './generators/exames.ts';
import { seedGruposLaudos, seedMedicos } from './generators/medicos.ts';
import { seedPacientes } from './generators/pacientes.ts';
import { seedProntuarios } from './generators/prontuarios.ts';
import { Random } from './random.ts';
import type { MedicoIds, SeedOptions, SeedResult } from './types.ts';

export type { SeedOptions, SeedProfile, SeedProgress, SeedResult, SeedSettings } from './types.ts';

export const DEFAULT_REFERENCE_DATE = '2026-11-01T12:00:00Z';

/**
 * Writes a tenant's rows (replacing any it had): the generators run in a fixed order on one PRNG, so the
 * same options give the same rows. Indexes, triggers and the search index are built once at the end.
 */
export async function seedTenant(options: SeedOptions): Promise<SeedResult> {
  const { dataDir, slug, profile } = options;
  for (const k of ['patients', 'exams', 'appointments'] as const)
    if (!Number.isInteger(options[k]) || options[k] < 0) throw new Error(`${k} must be a non-negative integer`);
  if (options.patients === 0 && (options.exams > 0 || options.appointments > 0))
    throw new Error('exams and appointments need at least one patient');
  const ref = new Date(options.referenceDate ?? DEFAULT_REFERENCE_DATE);
  if (Number.isNaN(ref.getTime())) throw new Error('invalid referenceDate');

  const tenant = await createTenantDatabase(dataDir, slug);
  const sqlite = tenant.sqlite;
  const ctx: SeedContext = {
    sqlite,
    rnd: new Random(`${options.seed}`),
    rich: profile === 'rich',
    ref,
    refDate: isoSeconds(ref).slice(0, 10),
    report: (phase, total) => (done) => options.onProgress?.({ phase, done, total }),
  };
  let deferred: DeferredSchema | null = null;
  let failed = false;
  try {
    beginBulkLoad(sqlite);
    deferred = deferSchema(sqlite);
    deleteAllRows(sqlite);

    const salt = createHash('sha256').update(`seed-salt:${options.seed}`).digest().subarray(0, 16);
    const senhaPaciente = hashPasswordWithSalt('paciente123', salt);
    const senhaMedico = hashPasswordWithSalt('medico123', salt);
    const criadoCatalogo = isoSeconds(new Date(ref.getTime() - 3 * 365 * 86400_000));

    options.onProgress?.({ phase: 'catalogos', done: 0, total: 1 });
    let catalogos!: Catalogos;
    sqlite.transaction(() => {
      const tabelas = seedCatalogos(ctx);
      const medicoIds = seedMedicos(ctx, senhaMedico, criadoCatalogo);
      seedGruposLaudos(ctx, medicoIds);
      seedClinica(ctx, options.nome ?? slug, options.settings ?? {}, medicoIds, criadoCatalogo);
      catalogos = { ...tabelas, medicoIds };
    })();
    options.onProgress?.({ phase: 'catalogos', done: 1, total: 1 });

    const P = options.patients;
    const convenioDoPaciente = seedPacientes(ctx, P, catalogos, senhaPaciente);
    const exames = seedExames(ctx, options.exams, P, catalogos, convenioDoPaciente);
    const agendamentos = seedAgenda(ctx, options.appointments, P, catalogos, convenioDoPaciente);
    const prontuarios = ctx.rich && P > 0 ? seedProntuarios(ctx, P, catalogos) : 0;

    const schema = deferred;
    deferred = null;
    restoreSchema(sqlite, schema, ctx.report('indices', schemaSteps(schema)), exames.contagens);
    return {
      slug,
      medicos: catalogos.medicoIds,
      counts: { pacientes: P, exames: options.exams, laudos: exames.laudos, agendamentos, prontuarios },
      file: tenantFile(dataDir, slug),
    };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    try {
      // A failed load still leaves a usable tenant: its schema back, over whatever rows were written.
      if (deferred) restoreSchema(sqlite, deferred, () => undefined, null);
      endBulkLoad(sqlite);
    } catch (error) {
      // biome-ignore lint/correctness/noUnsafeFinally: a cleanup failure surfaces only when the load itself succeeded
      if (!failed) throw error;
    } finally {
      await tenant.close();
    }
  }
}

/** A default tenant as the first start seeded it (or found it seeded). */
export interface SeededTenant {
  slug: string;
  nome: string;
  profile: SeedOptions['profile'];
  /** Doctor ids by role. */
  medicos: MedicoIds;
  /** Doctors suited to bind a demo key (exam or report role), first = exam and report doctor. */
  medicoIds: number[];
  seeded: boolean;
}

const bindable = (m: MedicoIds) => [...new Set([...m.exame, ...m.laudo])].sort((a, b) => a - b);

/** The active doctors of a tenant already holding patients, by role; null when it holds none (not seeded yet). */
async function seededDoctors(dataDir: string, slug: string): Promise<MedicoIds | null> {
  const existing = await createTenantDatabase(dataDir, slug);
  try {
    const count = existing.sqlite.prepare('SELECT COUNT(*) AS n FROM pacientes').get() as { n: number };
    if (count.n === 0) return null;
    const rows = existing.sqlite
      .prepare('SELECT id, papel_exame, papel_laudo, papel_solicitante FROM medicos WHERE ativo = 1 ORDER BY id')
      .all() as {
      id: number;
      papel_exame: number;
      papel_laudo: number;
      papel_solicitante: number;
    }[];
    return {
      exame: rows.filter((r) => r.papel_exame).map((r) => r.id),
      laudo: rows.filter((r) => r.papel_laudo).map((r) => r.id),
      solicitante: rows.filter((r) => r.papel_solicitante).map((r) => r.id),
    };
  } finally {
    await existing.close();
  }
}

/**
 * Seeds the default tenants (seed/default-tenants.ts: demo rich, sandbox synthetic, clinica-b rich with
 * stricter settings) on first run; tenants that already hold patients are left alone. Returns, keyed by
 * slug, doctor ids per tenant.
 */
export async function seedDefaultTenants(dataDir: string): Promise<Record<string, SeededTenant>> {
  const out: Record<string, SeededTenant> = {};
  for (const t of DEFAULT_TENANTS) {
    const found = await seededDoctors(dataDir, t.slug);
    const medicos = found ?? (await seedTenant({ dataDir, slug: t.slug, nome: t.nome, ...t.seed })).medicos;
    out[t.slug] = {
      slug: t.slug,
      nome: t.nome,
      profile: t.seed.profile,
      medicos,
      medicoIds: bindable(medicos),
      seeded: !found,
    };
  }
  return out;
}
