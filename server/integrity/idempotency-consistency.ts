import type { GatewayDb } from '../db/database.ts';
import type { BackendClient } from '../backend/client.ts';
import { ApiError } from '../errors.ts';
import type { IdempotencyEntries, OperationKey } from '../idempotency/idempotency.store.ts';
import { backendWriteToken } from '../idempotency/backend-write-token.ts';
import {
  idempotencyMarkersPath,
  MARKER_LOOKUP_MAX_TOKENS,
  markerLookupResponse,
} from '../../contracts/backend/idempotency-markers.ts';

/**
 * Entries checked at start, newest first. A damaged WAL loses the writes made since its last
 * checkpoint, which are the newest ones; the bound keeps the check to a few backend calls.
 */
export const CONSISTENCY_CHECK_ENTRIES = 5000;
/** Backend writes per operation whose token is looked up (each write operation makes one today; a second is allowed for). */
const WRITES_PER_OPERATION = 2;
/** A backend that does not answer does not hold the start up longer than this. */
const TENANT_TIMEOUT_MS = 5000;

export interface OrphanedEntry {
  tenant: string;
  chaveId: number;
  method: string;
  path: string;
  createdAt: number;
}

export interface ConsistencyReport {
  /** Completed 2xx entries compared with backend-sim's markers. */
  checked: number;
  /** Entries whose write backend-sim no longer holds: flagged `orphaned` (the retry executes; the console's inspector shows them). */
  orphaned: OrphanedEntry[];
  /** Entries that could not be compared, per tenant, with the reason (backend unreachable, unknown tenant). */
  unchecked: Array<{ tenant: string; entries: number; reason: string }>;
  ms: number;
}

export interface ConsistencyDeps {
  db: GatewayDb;
  store: IdempotencyEntries;
  backend: BackendClient;
  limit?: number;
}

/**
 * Start-time consistency of the two records of an acknowledged write (docs/decisions.md § Start-time
 * consistency): gateway.db's completed idempotency entry (what a retry replays) and backend-sim's marker,
 * committed with the write in the tenant database. An entry without a marker is an orphan: the backend
 * lost the write (a flipped WAL loses every frame from the damaged one on) while the gateway would keep
 * replaying `201 Idempotency-Replay: true` for a record that no longer exists. The entry is flagged
 * `orphaned` (IdempotencyStore.flagOrphan): it replays nothing, the retry with the same key and body
 * executes again and the record exists once more, and until then the console's idempotency inspector
 * lists it; the report (start log, `/readyz`) says what was found. Run before the gateway listens, so
 * no orphan is replayed.
 */
export async function checkIdempotencyConsistency(deps: ConsistencyDeps): Promise<ConsistencyReport> {
  const started = performance.now();
  const entries = await deps.store.recentSuccesses(deps.limit ?? CONSISTENCY_CHECK_ENTRIES);
  const report: ConsistencyReport = { checked: 0, orphaned: [], unchecked: [], ms: 0 };
  if (entries.length === 0) return { ...report, ms: Math.round(performance.now() - started) };

  const keys = await deps.db
    .selectFrom('api_keys')
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select(['api_keys.id as id', 'tenants.slug as slug'])
    .execute();
  const tenantOfKey = new Map(keys.map((k) => [k.id, k.slug]));
  const byTenant = new Map<string, Array<{ operation: OperationKey; createdAt: number }>>();
  for (const entry of entries) {
    const tenant = tenantOfKey.get(entry.operation.chaveId);
    // A key deleted since: its entries cannot be replayed by anyone.
    if (tenant === undefined) continue;
    let list = byTenant.get(tenant);
    if (!list) {
      list = [];
      byTenant.set(tenant, list);
    }
    list.push(entry);
  }

  for (const [tenant, list] of byTenant) {
    try {
      const known = await withTimeout(knownTokens(deps.backend, tenant, list), TENANT_TIMEOUT_MS);
      report.checked += list.length;
      for (const { operation, createdAt, tokens } of known.entries) {
        if (tokens.some((token) => known.tokens.has(token))) continue;
        await deps.store.flagOrphan(operation);
        report.orphaned.push({
          tenant,
          chaveId: operation.chaveId,
          method: operation.method,
          path: operation.path,
          createdAt,
        });
      }
    } catch (error) {
      report.unchecked.push({ tenant, entries: list.length, reason: reasonOf(error) });
    }
  }
  report.ms = Math.round(performance.now() - started);
  return report;
}

const tokensOf = (operation: OperationKey): string[] =>
  Array.from({ length: WRITES_PER_OPERATION }, (_, write) => backendWriteToken(operation, write));

/** Entries per lookup call: all their tokens in one. */
const ENTRIES_PER_CALL = Math.floor(MARKER_LOOKUP_MAX_TOKENS / WRITES_PER_OPERATION);

/**
 * The tenant's entries with their tokens (each hashed once) and those of the tokens backend-sim holds a marker for.
 * The check runs while the gateway already answers reads (decision T32-3): a call's tokens are hashed, the call is
 * sent, and the event loop is given back before the next batch is hashed, so no batch holds a request up for long;
 * the calls overlap backend-sim's lookups with the hashing of the next batch.
 */
async function knownTokens<E extends { operation: OperationKey }>(
  backend: BackendClient,
  tenant: string,
  list: E[],
): Promise<{ entries: Array<E & { tokens: string[] }>; tokens: Set<string> }> {
  const entries: Array<E & { tokens: string[] }> = [];
  const calls: Array<Promise<{ data: { known: string[] } }>> = [];
  for (let i = 0; i < list.length; i += ENTRIES_PER_CALL) {
    const batch = list.slice(i, i + ENTRIES_PER_CALL).map((entry) => ({ ...entry, tokens: tokensOf(entry.operation) }));
    entries.push(...batch);
    const call = backend.call(
      { method: 'POST', path: idempotencyMarkersPath(tenant), body: { tokens: batch.flatMap((e) => e.tokens) } },
      markerLookupResponse,
    );
    call.catch(() => undefined); // awaited below, with the others
    calls.push(call);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const known = new Set<string>();
  for (const { data } of await Promise.all(calls)) for (const token of data.known) known.add(token);
  return { entries, tokens: known };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function reasonOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** The start log's line for the report. */
export function describeConsistency(report: ConsistencyReport): string {
  const lines: string[] = [];
  if (report.orphaned.length > 0) {
    const perTenant = new Map<string, number>();
    for (const o of report.orphaned) perTenant.set(o.tenant, (perTenant.get(o.tenant) ?? 0) + 1);
    const where = [...perTenant].map(([tenant, n]) => `${tenant}: ${n}`).join(', ');
    lines.push(
      `idempotency check: ${report.orphaned.length} of ${report.checked} acknowledged write(s) of the last 24 h are missing from backend-sim (${where}); ` +
        'their Idempotency-Keys no longer replay a success: a retry with the same key and body executes again; ' +
        "until then the console's idempotency inspector lists them as orphaned",
    );
  } else if (report.checked > 0) {
    lines.push(
      `idempotency check: the ${report.checked} acknowledged write(s) of the last 24 h checked are all in backend-sim (${report.ms} ms)`,
    );
  }
  for (const u of report.unchecked)
    lines.push(
      `idempotency check: ${u.entries} entr${u.entries === 1 ? 'y' : 'ies'} of ${u.tenant} not checked (${u.reason})`,
    );
  return lines.join('\n');
}
