import path from 'node:path';
import { readFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';

/** Counts executions where they happen: rows of patients with this name in the tenant's backend database. */
export function countPatientsNamed(dataDir: string, slug: string, nome: string): number {
  const db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM pacientes WHERE nome = ?').get(nome.toUpperCase()) as { n: number })
      .n;
  } finally {
    db.close();
  }
}

/**
 * Test fixtures written straight into a tenant's backend-sim SQLite file (WAL mode makes this safe
 * while backend-sim runs). Tenants start empty; tests create the catalog rows they need here.
 * Table and column names are those of backend-sim/db/tables.
 */
export class TenantFixtures {
  private readonly db: SQLite.Database;

  constructor(dataDir: string, slug: string) {
    this.db = new SQLite(path.join(dataDir, 'backend', `${slug}.db`), { fileMustExist: true });
    this.db.pragma('busy_timeout = 5000');
  }

  /** Inserts one row and returns its id. */
  insert(table: string, row: Record<string, unknown>): number {
    const columns = Object.keys(row);
    const values = columns.map((c) => {
      const v = row[c];
      return typeof v === 'boolean' ? (v ? 1 : 0) : v;
    });
    const result = this.db
      .prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
      .run(...values);
    return Number(result.lastInsertRowid);
  }

  /** A patient row with sensible defaults (for filters that need a controlled `criado_em`). */
  paciente(row: Record<string, unknown>): number {
    const unique = Math.random().toString(36).slice(2, 10);
    return this.insert('pacientes', {
      nome: 'PACIENTE FIXTURE',
      numero_prontuario: `fx-${unique}`,
      usuario: `fx${unique}`,
      senha_hash: 'x',
      criado_em: '2024-01-01T00:00:00Z',
      ...row,
    });
  }

  /** A doctor row (system user) with sensible defaults. */
  medico(row: Record<string, unknown>): number {
    const unique = Math.random().toString(36).slice(2, 10);
    return this.insert('medicos', {
      nome: 'MEDICO FIXTURE',
      usuario: `med${unique}`,
      senha_hash: 'scrypt$fixture-secret-hash',
      criado_em: '2024-01-01T00:00:00Z',
      ...row,
    });
  }

  get(table: string, id: number): Record<string, unknown> | undefined {
    return this.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Record<string, unknown> | undefined;
  }

  /** Every row of every table, as text: equal snapshots mean nothing was written. */
  snapshot(): string {
    const tables = this.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      .all() as { name: string }[];
    // Rows sorted as text: some tables are WITHOUT ROWID, and order is not what is compared.
    return JSON.stringify(
      tables.map(({ name }) => [
        name,
        this.db
          .prepare(`SELECT * FROM "${name}"`)
          .all()
          .map((row) => JSON.stringify(row))
          .sort(),
      ]),
    );
  }

  close(): void {
    this.db.close();
  }
}

/** A valid CPF (check digits computed) derived from `seed`; distinct seeds give distinct CPFs. */
export function makeCpf(seed: number): string {
  const base = String(100_000_000 + (seed % 800_000_000)).slice(0, 9);
  const digits = base.split('').map(Number);
  const dv = (ds: number[]) => {
    let sum = 0;
    for (let i = 0; i < ds.length; i++) sum += ds[i] * (ds.length + 1 - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  const d1 = dv(digits);
  const d2 = dv([...digits, d1]);
  return `${base}${d1}${d2}`;
}

/** backend-sim's admin API (tenant settings, fault injection), authenticated with the internal token. */
export function backendAdmin(stack: { backendUrl: string; dataDir: string }) {
  const token = readFileSync(path.join(stack.dataDir, 'backend.token'), 'utf8').trim();
  return async (method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(stack.backendUrl + urlPath, {
      method,
      headers: { 'x-internal-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
}
