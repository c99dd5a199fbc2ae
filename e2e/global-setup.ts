import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { ephemeralConfig } from '../server/config.ts';
import { startStack } from '../appliance/stack.ts';
import { ensureOperator } from '../server/operators/index.ts';
import { ALL_SCOPES } from '../contracts/scopes.ts';
import { takeFirstStartSnapshot } from '../server/tenants/tenant-reset.ts';
import type { E2eEnv } from './support/env.ts';

const TENANT = 'clinica-e2e';
const MEDICOS = ['Dra. Helena Prado', 'Dr. Marcos Teixeira', 'Dra. Luiza Carvalho'];

/** Doctors straight into the tenant's backend database, as the seed's fast path does. */
function insertMedicos(dataDir: string, slug: string): number[] {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`));
  try {
    const insert = db.prepare(
      `INSERT INTO medicos (nome, usuario, senha_hash, conselho_sigla, conselho_numero, conselho_uf, especialidade,
        papel_exame, papel_laudo, papel_solicitante, ativo, criado_em)
       VALUES (?, ?, 'x', 'CRM', ?, 'SP', ?, 1, 1, 1, 1, '2026-01-01T00:00:00Z')`,
    );
    const specialties = ['Radiologia', 'Cardiologia', 'Ultrassonografia'];
    return MEDICOS.map((nome, i) =>
      Number(insert.run(nome, `e2e.medico.${i}`, String(123450 + i), specialties[i]).lastInsertRowid),
    );
  } finally {
    db.close();
  }
}

/** Two units and two insurers for the clinic settings' default pickers. */
function insertCatalogs(dataDir: string, slug: string): void {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`));
  try {
    const unidade = db.prepare(`INSERT INTO unidades (nome, abreviacao, cidade, uf, ativo) VALUES (?, ?, ?, 'SP', 1)`);
    unidade.run('Unidade Centro', 'CEN', 'Sao Paulo');
    unidade.run('Unidade Campinas', 'CPS', 'Campinas');
    const convenio = db.prepare(`INSERT INTO convenios (nome, abreviacao, codigo_ans, ativo) VALUES (?, ?, ?, 1)`);
    convenio.run('Saude Mais E2E', 'SME', '412345');
    convenio.run('Particular', 'PART', '');
  } finally {
    db.close();
  }
}

/**
 * E2E_BASE_URL: an appliance already running (`npm start`). Nothing is started; credentials come from
 * E2E_OPERATOR / E2E_PASSWORD (and, for workers sharing one clinic, E2E_API_KEY / E2E_API_SECRET / E2E_TENANT),
 * and whatever is not set from E2E_DATA_DIR/demo-credentials.json (default ./data): the operator and the `demo`
 * key (clinic `demo`). The workers' clinics are clones of E2E_TEMPLATE (default `demo`).
 */
function externalAppliance(baseUrl: string): E2eEnv {
  const v = process.env;
  const file = path.join(path.resolve(v.E2E_DATA_DIR ?? 'data'), 'demo-credentials.json');
  // Each worker's clone brings its own key: the operator is enough, unless the workers share one clinic.
  const sharedClinic = v.E2E_CLINIC_PER_WORKER === '0';
  const needsFile = !(v.E2E_OPERATOR && v.E2E_PASSWORD && (!sharedClinic || (v.E2E_API_KEY && v.E2E_API_SECRET)));
  let creds: {
    operator?: { username: string; password: string };
    keys?: Record<string, { api_key: string; api_secret: string; clinica: string }>;
  } = {};
  if (needsFile) {
    try {
      creds = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(
        `E2E_BASE_URL is set but ${file} cannot be read (${(error as Error).message}): set E2E_DATA_DIR to the appliance's DATA_DIR, or E2E_OPERATOR, E2E_PASSWORD, E2E_API_KEY and E2E_API_SECRET`,
      );
    }
  }
  const demo = creds.keys?.demo;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    external: true,
    tenant: v.E2E_TENANT ?? demo?.clinica ?? 'demo',
    template: v.E2E_TEMPLATE || 'demo',
    operator: v.E2E_OPERATOR ?? creds.operator?.username ?? 'admin',
    password: v.E2E_PASSWORD ?? creds.operator?.password ?? '',
    apiKey: v.E2E_API_KEY ?? demo?.api_key ?? '',
    apiSecret: v.E2E_API_SECRET ?? demo?.api_secret ?? '',
    operatorToken: v.E2E_OPERATOR_TOKEN || undefined,
    lockUser: '',
    medicoId: 0,
    medicoName: '',
  };
}

/** The run's lock folder (e2e/kit/alone.ts): tests marked `applianceWide` run while no other test does. */
function lockDir(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-lock-'));
  mkdirSync(path.join(dir, 'shared'));
  process.env.E2E_LOCK_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Starts S3 + backend-sim + gateway on free ports with a throw-away data dir; returns the teardown. */
export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  const removeLock = lockDir();
  if (process.env.E2E_BASE_URL) {
    process.env.E2E_STACK = JSON.stringify(externalAppliance(process.env.E2E_BASE_URL));
    return async () => removeLock();
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-'));
  const config = ephemeralConfig(dataDir);
  const stack = await startStack(config);
  try {
    const { backendReady } = await stack.tenants.create({ slug: TENANT, nome: 'Clinica Sao Lucas (E2E)' });
    if (!backendReady) throw new Error('backend-sim did not create the e2e tenant');
    const medicoIds = insertMedicos(dataDir, TENANT);
    insertCatalogs(dataDir, TENANT);
    // The doctors and catalogs are part of the clinic's first-start state: a kit reset (resetBeforeEach) keeps them.
    await takeFirstStartSnapshot(stack.backend, TENANT);
    const password = 'e2e-operator-password';
    await ensureOperator(stack.gatewayDb.db, 'operador', password);
    await ensureOperator(stack.gatewayDb.db, 'bloqueado', password);
    const watcher = await stack.keys.create({ tenantSlug: TENANT, scopes: [...ALL_SCOPES], label: 'E2E watcher' });
    const env: E2eEnv = {
      baseUrl: stack.gatewayUrl,
      tenant: TENANT,
      // Each worker's clinic is a clone of the e2e clinic: its doctors, catalogs and ids.
      template: TENANT,
      operator: 'operador',
      password,
      lockUser: 'bloqueado',
      medicoId: medicoIds[1],
      medicoName: MEDICOS[1],
      apiKey: watcher.api_key,
      apiSecret: watcher.api_secret,
    };
    process.env.E2E_STACK = JSON.stringify(env);
  } catch (error) {
    await stack.close();
    removeLock();
    throw error;
  }
  return async () => {
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
    removeLock();
  };
}
