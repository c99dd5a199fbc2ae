import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import type { BackendS3Config } from '../../backend-sim/config.ts';
import type { TenantDatabase } from '../../backend-sim/db/database.ts';
import { applySearchQueue } from '../../backend-sim/db/derived.ts';
import { startBackendSim, type RunningBackendSim } from '../../backend-sim/main.ts';
import { createTenantDatabase } from '../../backend-sim/tenants.ts';
import { startEmbeddedS3, type EmbeddedS3 } from '../../appliance/storage/embedded-s3.ts';

export const TOKEN = 'test-internal-token';

export interface Harness {
  sim: RunningBackendSim;
  dataDir: string;
  s3?: EmbeddedS3;
  s3Config?: BackendS3Config;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
  /** A second connection on the tenant file, for arranging fixtures and checking stored rows. */
  tenantDb(slug: string): Promise<TenantDatabase>;
  close(): Promise<void>;
}

export async function startHarness(options: { s3?: boolean; now?: () => Date } = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'backend-sim-test-'));
  let s3: EmbeddedS3 | undefined;
  let s3Config: BackendS3Config | undefined;
  if (options.s3) {
    s3 = await startEmbeddedS3({
      directory: join(dataDir, 's3'),
      port: 0,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      buckets: ['clinic-files'],
    });
    s3Config = {
      endPoint: '127.0.0.1',
      port: s3.port,
      useSSL: false,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      bucket: 'clinic-files',
    };
  }
  const sim = await startBackendSim({ dataDir, internalToken: TOKEN, port: 0, s3: s3Config, now: options.now });
  const opened: TenantDatabase[] = [];
  return {
    sim,
    dataDir,
    s3,
    s3Config,
    async call(method, path, body, headers = {}) {
      const res = await fetch(sim.url + path, {
        method,
        headers: {
          'x-internal-token': TOKEN,
          'x-chave-id': '11',
          'x-medico-filtro-id': '0',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async tenantDb(slug) {
      const t = await createTenantDatabase(dataDir, slug);
      opened.push(t);
      return t;
    },
    async close() {
      await Promise.all(opened.map((t) => t.close()));
      await sim.close();
      await s3?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Minimal catalog rows used by the semantic tests (ids are deterministic: 1, 2, ...). */
export async function arrangeCatalog(t: TenantDatabase) {
  const db = t.db;
  await db
    .insertInto('estados_civis')
    .values([{ nome: 'Solteiro(a)' }, { nome: 'Casado(a)' }])
    .execute();
  await db
    .insertInto('saudacoes')
    .values([{ nome: 'Dr.' }, { nome: 'Dra.' }])
    .execute();
  await db
    .insertInto('grupos_permissao')
    .values([{ nome: 'Medicos' }])
    .execute();
  await db
    .insertInto('cidades')
    .values([
      { nome: 'Sao Paulo', uf: 'SP' },
      { nome: 'Campinas', uf: 'SP' },
    ])
    .execute();
  await db
    .insertInto('convenios')
    .values([
      { nome: 'Unimed', abreviacao: 'UNI', codigo_ans: '123456', ativo: 1 },
      { nome: 'Bradesco Saude', abreviacao: 'BRA', codigo_ans: '', ativo: 1 },
    ])
    .execute();
  await db
    .insertInto('planos')
    .values([
      { convenio_id: 1, nome: 'Basico', codigo_ans: '111', ativo: 1 },
      { convenio_id: 2, nome: 'Top', codigo_ans: '222', ativo: 1 },
    ])
    .execute();
  await db
    .insertInto('unidades')
    .values([{ nome: 'Unidade Centro', abreviacao: 'CEN', cnpj: null, cidade: 'Sao Paulo', uf: 'SP', ativo: 1 }])
    .execute();
  await db
    .insertInto('salas')
    .values([{ unidade_id: 1, nome: 'Sala 1', ativo: 1 }])
    .execute();
  await db
    .insertInto('procedimentos')
    .values([
      {
        nome: 'Ultrassonografia de abdome total',
        abreviacao: 'USGABD',
        codigo_tuss: '40901122',
        descricao_tuss: 'US - Abdome total',
        requer_laudo: 1,
        possui_imagens: 1,
        ativo: 1,
      },
      {
        nome: 'Eletrocardiograma',
        abreviacao: 'ECG',
        codigo_tuss: '40101010',
        descricao_tuss: 'ECG convencional',
        requer_laudo: 1,
        possui_imagens: 0,
        ativo: 1,
      },
      {
        nome: 'Ultrassonografia antiga',
        abreviacao: 'USOLD',
        codigo_tuss: '',
        descricao_tuss: '',
        requer_laudo: 1,
        possui_imagens: 0,
        ativo: 0,
      },
    ])
    .execute();
  const medico = (nome: string, usuario: string, papeis: { e?: number; l?: number; s?: number }) => ({
    nome,
    usuario,
    senha_hash: 'x',
    saudacao_id: 1,
    conselho_sigla: 'CRM',
    conselho_numero: String(1000 + usuario.length),
    conselho_uf: 'SP',
    papel_exame: papeis.e ?? 0,
    papel_laudo: papeis.l ?? 0,
    papel_solicitante: papeis.s ?? 0,
    cpf: '52998224725',
    rg: '123456789',
    ativo: 1,
    criado_em: '2026-01-01T00:00:00Z',
  });
  await db
    .insertInto('medicos')
    .values([
      medico('Ana Souza', 'ana', { e: 1, l: 1 }), // 1
      medico('Bruno Lima', 'bruno', { e: 1 }), // 2
      medico('Carla Dias', 'carla', { s: 1 }), // 3
      { ...medico('Davi Inativo', 'davi', { l: 1 }), ativo: 0 }, // 4
    ])
    .execute();
  await db
    .insertInto('cids')
    .values([
      { codigo: 'J45.9', nome: 'Asma nao especificada' },
      { codigo: 'I10', nome: 'Hipertensao essencial' },
    ])
    .execute();
  await db
    .insertInto('complementos')
    .values([{ nome: 'Com contraste', ativo: 1 }])
    .execute();
  await db
    .insertInto('grupos_laudos')
    .values([{ nome: 'Radiologia', ativo: 1 }])
    .execute();
  await db
    .insertInto('grupos_laudos_medicos')
    .values([{ grupo_laudo_id: 1, medico_id: 1 }])
    .execute();
}

export async function createTenant(h: Harness, slug: string) {
  const res = await h.call('POST', '/admin/tenants', { slug, nome: `Clinica ${slug}` });
  if (res.status !== 201 && res.status !== 200) throw new Error(`tenant create failed: ${JSON.stringify(res.body)}`);
  return h.tenantDb(slug);
}

export const VALID_CPFS = ['52998224725', '11144477735', '39053344705', '86288366757'];

/**
 * What the trigger-kept derived data (search index, list counts) gets wrong against the rows, recomputed
 * here from their definitions; [] when all agree. Applies the search index's queue first, as a search
 * does; needs a writable connection (that, and FTS5's integrity-check).
 */
export function derivedMismatches(sqlite: SQLite.Database): string[] {
  const problems: string[] = [];
  // Patient-name changes wait in a queue until a search (or the 64th change) applies them.
  applySearchQueue(sqlite);
  try {
    // rank 1: also compares the index with the content table (pacientes).
    sqlite.prepare("INSERT INTO pacientes_nome_busca (pacientes_nome_busca, rank) VALUES ('integrity-check', 1)").run();
  } catch (error) {
    problems.push(`pacientes_nome_busca: ${(error as Error).message}`);
  }
  const same = (what: string, actual: unknown[], wanted: unknown[]) => {
    if (JSON.stringify(actual) !== JSON.stringify(wanted))
      problems.push(`${what}: ${JSON.stringify(actual).slice(0, 300)} != ${JSON.stringify(wanted).slice(0, 300)}`);
  };
  same(
    'pacientes_contagem',
    sqlite.prepare('SELECT ativo, n FROM pacientes_contagem WHERE n != 0 ORDER BY ativo').all(),
    sqlite.prepare('SELECT ativo, COUNT(*) AS n FROM pacientes GROUP BY ativo ORDER BY ativo').all(),
  );
  const counts = (filtro: string) =>
    sqlite
      .prepare('SELECT valor, data, n FROM exames_contagem WHERE filtro = ? AND n != 0 ORDER BY valor, data')
      .all(filtro);
  same(
    'exames_contagem todos',
    counts('todos'),
    sqlite
      .prepare(
        'SELECT 0 AS valor, data_realizado AS data, COUNT(*) AS n FROM exames WHERE excluido_em IS NULL GROUP BY 2 ORDER BY 2',
      )
      .all(),
  );
  same(
    'exames_contagem procedimento',
    counts('procedimento'),
    sqlite
      .prepare(
        'SELECT procedimento_id AS valor, data_realizado AS data, COUNT(*) AS n FROM exames WHERE excluido_em IS NULL GROUP BY 1, 2 ORDER BY 1, 2',
      )
      .all(),
  );
  same(
    'exames_contagem medico',
    counts('medico'),
    sqlite
      .prepare(
        `WITH ids AS (SELECT medico_exame_id AS id FROM exames UNION SELECT medico_laudo_id FROM exames UNION SELECT medico_solicitante_id FROM exames)
         SELECT ids.id AS valor, e.data_realizado AS data, COUNT(*) AS n FROM ids JOIN exames e
           ON e.excluido_em IS NULL AND (e.medico_exame_id = ids.id OR e.medico_laudo_id = ids.id OR e.medico_solicitante_id = ids.id)
         WHERE ids.id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all(),
  );
  same(
    'exames_contagem status',
    counts('status'),
    sqlite
      .prepare(
        `SELECT CASE WHEN arquivo_laudo_key IS NULL THEN 0
           WHEN EXISTS (SELECT 1 FROM laudos l WHERE l.exame_id = exames.id AND l.assinado = 1 AND l.excluido_em IS NULL) THEN 2 ELSE 1 END AS valor,
           data_realizado AS data, COUNT(*) AS n FROM exames WHERE excluido_em IS NULL GROUP BY 1, 2 ORDER BY 1, 2`,
      )
      .all(),
  );
  const laudos = (filtro: string) =>
    sqlite
      .prepare('SELECT valor, data, n FROM laudos_contagem WHERE filtro = ? AND n != 0 ORDER BY valor, data')
      .all(filtro);
  same(
    'laudos_contagem todos',
    laudos('todos'),
    sqlite
      .prepare(
        'SELECT 0 AS valor, data_laudo AS data, COUNT(*) AS n FROM laudos WHERE excluido_em IS NULL GROUP BY 2 ORDER BY 2',
      )
      .all(),
  );
  same(
    'laudos_contagem assinado',
    laudos('assinado'),
    sqlite
      .prepare(
        'SELECT assinado AS valor, data_laudo AS data, COUNT(*) AS n FROM laudos WHERE excluido_em IS NULL GROUP BY 1, 2 ORDER BY 1, 2',
      )
      .all(),
  );
  same(
    'laudos_contagem medico',
    laudos('medico'),
    sqlite
      .prepare(
        'SELECT medico_laudo_id AS valor, data_laudo AS data, COUNT(*) AS n FROM laudos WHERE excluido_em IS NULL AND medico_laudo_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2',
      )
      .all(),
  );
  return problems;
}
