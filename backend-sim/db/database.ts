import { chmodSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator } from 'kysely';
import { IdempotentSqliteDialect } from './idempotent-dialect.ts';
import { migrations } from './migrations/index.ts';
import type {
  AgendaConfigsTable,
  AgendaConveniosBloqueadosTable,
  AgendaHorariosTable,
  AgendaProcedimentosTable,
} from './tables/agenda-configs.ts';
import type { AgendamentoHistoricoTable, AgendamentosTable } from './tables/agendamentos.ts';
import type { CidadesTable } from './tables/cidades.ts';
import type { CidsTable } from './tables/cids.ts';
import type { ClinicaConfigTable } from './tables/clinica-config.ts';
import type { ComplementosTable } from './tables/complementos.ts';
import type { ConveniosTable } from './tables/convenios.ts';
import type { EstadosCivisTable } from './tables/estados-civis.ts';
import type { ExameArquivosTable } from './tables/exame-arquivos.ts';
import type { ExamesContagemTable, ExamesTable } from './tables/exames.ts';
import type { GruposLaudosMedicosTable, GruposLaudosTable } from './tables/grupos-laudos.ts';
import type { GruposPermissaoTable } from './tables/grupos-permissao.ts';
import type { IdempotencyMarkersTable } from './tables/idempotency-markers.ts';
import type { LaudosContagemTable, LaudosTable } from './tables/laudos.ts';
import type { MedicosTable } from './tables/medicos.ts';
import type { PacientesContagemTable, PacientesTable } from './tables/pacientes.ts';
import type { PlanosTable } from './tables/planos.ts';
import type { ProcedimentosTable } from './tables/procedimentos.ts';
import type { ProntuarioAnexosTable, ProntuariosTable } from './tables/prontuarios.ts';
import type { SalasTable } from './tables/salas.ts';
import type { SaudacoesTable } from './tables/saudacoes.ts';
import type { UnidadesTable } from './tables/unidades.ts';

export interface Database {
  clinica_config: ClinicaConfigTable;
  estados_civis: EstadosCivisTable;
  saudacoes: SaudacoesTable;
  grupos_permissao: GruposPermissaoTable;
  cidades: CidadesTable;
  pacientes: PacientesTable;
  pacientes_contagem: PacientesContagemTable;
  medicos: MedicosTable;
  procedimentos: ProcedimentosTable;
  convenios: ConveniosTable;
  planos: PlanosTable;
  unidades: UnidadesTable;
  salas: SalasTable;
  complementos: ComplementosTable;
  grupos_laudos: GruposLaudosTable;
  grupos_laudos_medicos: GruposLaudosMedicosTable;
  cids: CidsTable;
  exames: ExamesTable;
  exames_contagem: ExamesContagemTable;
  exame_arquivos: ExameArquivosTable;
  laudos: LaudosTable;
  laudos_contagem: LaudosContagemTable;
  agenda_configs: AgendaConfigsTable;
  agenda_horarios: AgendaHorariosTable;
  agenda_procedimentos: AgendaProcedimentosTable;
  agenda_convenios_bloqueados: AgendaConveniosBloqueadosTable;
  agendamentos: AgendamentosTable;
  agendamento_historico: AgendamentoHistoricoTable;
  prontuarios: ProntuariosTable;
  prontuario_anexos: ProntuarioAnexosTable;
  idempotency_markers: IdempotencyMarkersTable;
}

/** A Kysely instance or a transaction: repositories accept either. */
export type Db = Kysely<Database>;

export interface TenantDatabase {
  db: Kysely<Database>;
  /** The raw connection, for the seed's prepared-statement fast path. */
  sqlite: SQLite.Database;
  close(): Promise<void>;
}

/** Opens (creating if needed) a tenant SQLite file in WAL mode and migrates it to latest. */
export async function openTenantDatabase(
  file: string,
  options: { create: boolean } = { create: true },
): Promise<TenantDatabase> {
  const sqlite = new SQLite(file, { fileMustExist: !options.create });
  try {
    // Patient data: owner-only, whatever the umask. SQLite gives the -wal and -shm the database file's mode.
    for (const name of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        chmodSync(name, 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
  } catch (err) {
    sqlite.close();
    throw err;
  }
  // Kysely's SQLite dialect, plus the idempotency markers of the gateway's writes (exactly once across crashes).
  const db = new Kysely<Database>({ dialect: new IdempotentSqliteDialect(sqlite) });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    await db.destroy();
    throw error instanceof Error ? error : new Error(String(error));
  }
  // New indexes on an analyzed (large, seeded) tenant need fresh statistics or the planner ignores them.
  // Sampled as the seed samples them (seed/bulk-load.ts): the list plans were measured on those statistics,
  // and a full ANALYZE (with sqlite_stat4's histograms) led the planner to a skip-scan of the requester index
  // for one date of exams (a report-status page at 1,000,000 exams: 30 ms instead of 0.05 ms).
  const analyzed = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get();
  if (results?.length && analyzed) {
    sqlite.pragma('analysis_limit = 2000');
    sqlite.exec('ANALYZE');
  }
  return {
    db,
    sqlite,
    close: async () => {
      sqlite.pragma('optimize');
      await db.destroy();
    },
  };
}
