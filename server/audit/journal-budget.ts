import { statfsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { allSettledLoop } from './sync-or-async.ts';

/** The journal's classes, shed in this order's reverse: unattributed noise first, verified history never (by volume). */
export type JournalClass = 'verified' | 'unverified' | 'unattributed';
export const JOURNAL_CLASSES: readonly JournalClass[] = ['verified', 'unverified', 'unattributed'];

/** Unverified and unattributed entries together never take more than this share of either cap. */
export const NOISE_SHARE = 0.1;
/** Free pages inside gateway.db that still let verified entries in while the disk is low (no file growth). */
const LOW_SPACE_RESERVE_BYTES = 1024 ** 2;
/** Past this share of a cap, verified entries alone, the console and /readyz warn. */
const WARN_SHARE = 0.8;
const FREE_SPACE_CHECK_MS = 1000;
/** While failing, how often the journal tries whether the file takes writes again. */
const PROBE_INTERVAL_MS = 1000;
/** What the probe writes (and deletes): about the largest entry, so a pass means a whole entry fits. */
const PROBE_BYTES = 32 * 1024;
const RECENT_SHED_MS = 10 * 60_000;
const KiB = 1024;

/**
 * What the warnings and refusals name besides a larger budget (issue 30): in development mode, a shorter
 * retention or a prune (docs/operations.md § Audit journal sizing).
 */
export const JOURNAL_REMEDIES_AVISO =
  'Em modo de desenvolvimento: encurte a retencao com AUDIT_RETENTION_DAYS ou pode o journal com `journal prune --before <data> [--tenant <slug>]` (CLI), o botao "Prune journal" da tela Audit do console ou POST /admin/api/journal/prune.';

/**
 * Room kept under AUDIT_MAX_BYTES for what is committed between two checks (the entries of requests in
 * flight, the batch that crossed the line): noise is shed from `budget − margin` on, /v1 is refused
 * from `budget − margin / 2`. 1/32 of the budget, at least 128 KiB.
 */
export function diskMarginBytes(maxBytes: number): number {
  return Math.max(128 * KiB, Math.floor(maxBytes / 32));
}

export interface JournalBudgetOptions {
  maxBytes: number;
  maxRows: number;
  minFreeBytes: number;
  /** DATA_DIR, whose file system's free space is watched; null: not watched (in-memory tests). */
  dataDir: string | null;
  /** Free bytes of the file system holding `dir` (statfs by default). */
  freeBytesOf?: (dir: string) => number;
  /** State changes (never per request). */
  log?: (level: 'warn' | 'error' | 'info', message: string) => void;
}

export interface ClassTotals {
  rows: number;
  bytes: number;
}

export type JournalState = 'ok' | 'warning' | 'full' | 'failing';

/** Why the state is not ok, as codes (the console words them; `avisos` words them for the API). */
export type JournalReason =
  | 'write_failed'
  | 'verified_full'
  | 'verified_near_full'
  | 'disk_full'
  | 'disk_near_full'
  | 'low_space'
  | 'near_low_space'
  | 'noise_shed';

/**
 * The journal on DATA_DIR, in bytes: the pages its tables and indexes take in gateway.db, plus the WAL's
 * share and its index (fixed, counted whole). `footprint` never passes AUDIT_MAX_BYTES.
 */
export interface JournalDisk {
  pages_bytes: number;
  wal_share_bytes: number;
  shm_bytes: number;
  footprint_bytes: number;
  /** Past this footprint noise is shed; past `refuse_at_bytes` /v1 answers 503. */
  shed_at_bytes: number;
  refuse_at_bytes: number;
}

export interface JournalStatus {
  state: JournalState;
  reasons: JournalReason[];
  /** The same reasons in the API's words (Portuguese, like every message of the appliance; /readyz shows them). */
  avisos: string[];
  accepting: boolean;
  max_bytes: number;
  max_rows: number;
  min_free_bytes: number;
  noise_cap_bytes: number;
  totals: Record<JournalClass, ClassTotals>;
  disk: JournalDisk;
  free_bytes: number | null;
  last_shed_at: string | null;
  shed_rows_total: number;
  last_write_error: string | null;
}

/** What a committed batch changed: rows and weights per class, and the journal's pages in gateway.db. */
export type Delta = Partial<Record<JournalClass, ClassTotals>> & { pages?: number };

/** The deletions the budget makes: the retention purge (audit_log, groups) and the shedding of noise. */
export type JournalDeletion = 'purge_log' | 'purge_groups' | 'shed_groups' | 'shed_unverified';

/** One chunk of a deletion: its negative delta per class, the rows deleted and the pages it gave back. */
export interface DeletedChunk {
  delta: Record<JournalClass, ClassTotals>;
  rows: number;
  pages: number;
}

/**
 * What the budget needs of the database holding the journal: gateway.db (sqliteJournalStore in sqlite-journal.ts, synchronous, its
 * pages counted exactly) or the cluster's PostgreSQL (server/audit/postgres-journal.ts, asynchronous, its
 * relations' sizes read again every second). Each deletion and its totals commit together.
 */
export interface JournalStore {
  readTotals(): Array<{ kind: JournalClass } & ClassTotals> | Promise<Array<{ kind: JournalClass } & ClassTotals>>;
  /** Writes (and deletes) `bytes` of probe: true when the database takes writes again. */
  probe(bytes: number): boolean | Promise<boolean>;
  /** Room inside the database that new entries can use without growing its files (SQLite's free pages; 0 where unknown). */
  reusableBytes(): number;
  /** One chunk of a deletion (`parameter`: a cutoff, or nothing for the shedding) of at most `limit` rows, with its totals. */
  deleteChunk(what: JournalDeletion, parameter: string | null, limit: number): DeletedChunk | Promise<DeletedChunk>;
  /** Whether the database is still open (a shed in progress stops at close). */
  isOpen(): boolean;
  /** Bytes per page (what `pages` counts in). */
  readonly pageSize: number;
  /** The journal's pages in the database now (SQLite: dbstat, once at start; PostgreSQL: its relations' sizes). */
  journalPages(): number | Promise<number>;
  /** The WAL's share of the budget and its index, counted whole (SQLite); 0 where the log is the server's own (PostgreSQL). */
  readonly walShareBytes: number;
  readonly shmBytes: number;
  /** Several processes write this journal (PostgreSQL): the budget reads the totals and pages again every second. */
  readonly shared: boolean;
  /** At most this many entries, and this much weight, per journal transaction. */
  readonly batchEntries: number;
  readonly batchBytes: number;
}

/** The deleted rows' classes and weights as a negative delta (rows of audit_log carry `verified`; groups have null). */
export function deletedChunkOf(rows: Array<{ verified: number | null; bytes: number }>, pages: number): DeletedChunk {
  const delta: Record<JournalClass, ClassTotals> = {
    verified: { rows: 0, bytes: 0 },
    unverified: { rows: 0, bytes: 0 },
    unattributed: { rows: 0, bytes: 0 },
  };
  for (const row of rows) {
    const kind: JournalClass = row.verified === null ? 'unattributed' : row.verified === 1 ? 'verified' : 'unverified';
    delta[kind].rows -= 1;
    delta[kind].bytes -= row.bytes;
  }
  return { delta, rows: rows.length, pages };
}

/**
 * The journal's byte and row budget (issue 19). Totals per class are kept in `audit_budget` with every
 * batch (AuditWriter) and every deletion here, so a start reads three rows instead of scanning. Rules:
 * - noise (unverified refusals and unattributed groups) takes at most NOISE_SHARE of each cap; past it,
 *   or past a cap, or with the disk low, the oldest noise is deleted (unattributed groups, then unverified);
 * - on disk, the journal's footprint (its pages in gateway.db, counted exactly: every transaction that
 *   writes its tables measures SQLite's pages in use before and after, plus the WAL's share and its
 *   index) stays under AUDIT_MAX_BYTES: noise is shed from `budget − margin`, /v1 is refused from
 *   `budget − margin / 2` (diskMarginBytes), whatever the entries' weights say;
 * - verified entries inside the retention are never deleted by volume: when they alone reach a cap or
 *   the disk line, or the disk is low and gateway.db has no free page left, the journal is full and /v1
 *   answers 503 until the retention purge, a larger budget or free space makes room;
 * - a failed commit (disk full, I/O error) marks the journal failing until a commit succeeds.
 */
export class JournalBudget {
  readonly maxBytes: number;
  readonly maxRows: number;
  readonly minFreeBytes: number;
  private readonly totals: Record<JournalClass, ClassTotals>;
  private readonly freeBytesOf: (dir: string) => number;
  private readonly log: NonNullable<JournalBudgetOptions['log']>;
  private freeBytes: number | null = null;
  private freeCheckedAt = -Infinity;
  private lastWriteError: string | null = null;
  private lastProbeAt = -Infinity;
  private probing = false;
  private readonly recoveredListeners: Array<() => void> = [];
  private lastShedAt: number | null = null;
  private shedRowsTotal = 0;
  private shedding: Promise<number> | null = null;
  private reportedState: JournalState = 'ok';
  private readonly pageSize: number;
  /** Pages of the database the journal's tables and indexes take (measured at start, then kept with every write). */
  private journalPages = 0;
  readonly walShareBytes: number;
  private readonly marginBytes: number;
  /** At most this many entries, and this much weight, per journal transaction: its pages stay within half the WAL's share. */
  readonly batchEntries: number;
  readonly batchBytes: number;
  private readonly store: JournalStore;
  private refreshTimer: NodeJS.Timeout | null = null;
  /** Bumped by every change to the totals; with changesInFlight, tells a re-read that raced a commit (see readTotalsUnraced). */
  private changeEpoch = 0;
  private changesInFlight = 0;

  /**
   * `store`: gateway.db's (sqliteJournalStore, server/audit/sqlite-journal.ts: everything is read at once) or
   * the cluster's PostgreSQL (postgresJournalStore: call `open()`, it answers asynchronously).
   */
  constructor(
    store: JournalStore,
    private readonly options: JournalBudgetOptions,
  ) {
    this.store = store;
    this.maxBytes = options.maxBytes;
    this.maxRows = options.maxRows;
    this.minFreeBytes = options.minFreeBytes;
    this.freeBytesOf =
      options.freeBytesOf ??
      ((dir) => {
        const s = statfsSync(dir);
        return s.bavail * s.bsize;
      });
    this.log = options.log ?? ((level, message) => console[level](`audit journal: ${message}`));
    this.totals = {
      verified: { rows: 0, bytes: 0 },
      unverified: { rows: 0, bytes: 0 },
      unattributed: { rows: 0, bytes: 0 },
    };
    this.pageSize = this.store.pageSize;
    this.walShareBytes = this.store.walShareBytes;
    this.marginBytes = diskMarginBytes(this.maxBytes);
    this.batchEntries = this.store.batchEntries;
    this.batchBytes = this.store.batchBytes;
    const totals = this.store.readTotals();
    const pages = this.store.journalPages();
    if (!(totals instanceof Promise)) this.setTotals(totals);
    if (!(pages instanceof Promise)) this.journalPages = pages;
  }

  /**
   * Reads what an asynchronous store answers (totals, the journal's pages) and, where several processes write
   * the journal, reads it again every second: the other instances' batches and deletions move it too.
   */
  async open(): Promise<this> {
    await this.refresh();
    if (this.store.shared && !this.refreshTimer) {
      this.refreshTimer = setInterval(() => {
        this.refresh().then(
          () => {
            if (this.overBudget()) void this.shed();
            this.reportState();
          },
          () => undefined,
        );
      }, 1000);
      this.refreshTimer.unref();
    }
    return this;
  }

  private async refresh(): Promise<void> {
    const read = await this.readUnraced(() => Promise.all([this.store.readTotals(), this.store.journalPages()]));
    if (read === null) return;
    this.setTotals(read[0]);
    this.journalPages = read[1];
  }

  /**
   * Reads the stored totals where no commit of this process overlapped the read: a batch committed while a
   * SELECT ran may or may not be in what it saw, and its delta would then be lost or counted twice. A read
   * that overlapped one is read again (three tries; null after that — the next refresh corrects it).
   */
  private async readUnraced<T>(read: () => T | Promise<T>): Promise<T | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.changesInFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      if (this.changesInFlight > 0) continue;
      const epoch = this.changeEpoch;
      const value = await read();
      if (this.changeEpoch === epoch && this.changesInFlight === 0) return value;
    }
    return null;
  }

  /**
   * A change to the journal's totals has started in this process (an asynchronous batch, chunk or shed): call
   * the function returned once its delta is applied or it failed. Re-reads of the totals meanwhile are discarded.
   */
  changeStarted(): () => void {
    this.changeEpoch += 1;
    this.changesInFlight += 1;
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.changesInFlight -= 1;
      this.changeEpoch += 1;
    };
  }

  /**
   * Another process changed the journal (the CLI's `journal prune` on gateway.db, server/audit/journal-prune.ts):
   * its totals read again, and its pages as the caller measured them (journalPagesByComplement) when given.
   */
  async reload(pages?: number): Promise<void> {
    const totals = await this.readUnraced(() => this.store.readTotals());
    if (totals === null) return;
    this.setTotals(totals);
    if (pages !== undefined) this.journalPages = pages;
    if (this.overBudget()) void this.shed();
    this.reportState();
  }

  close(): void {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
  }

  private setTotals(rows: Array<{ kind: JournalClass } & ClassTotals>): void {
    for (const row of rows) {
      if (row.kind in this.totals) this.totals[row.kind] = { rows: Number(row.rows), bytes: Number(row.bytes) };
    }
  }

  /** Totals after a committed batch or deletion (the same numbers went into audit_budget in its transaction). */
  apply(delta: Delta): void {
    this.changeEpoch += 1;
    for (const kind of JOURNAL_CLASSES) {
      const d = delta[kind];
      if (!d) continue;
      this.totals[kind].rows += d.rows;
      this.totals[kind].bytes += d.bytes;
    }
    this.journalPages += delta.pages ?? 0;
    if (this.overBudget()) void this.shed();
    this.reportState();
  }

  commitFailed(error: Error): void {
    const first = this.lastWriteError === null;
    this.lastWriteError = (error as { code?: string }).code ?? error.name;
    this.lastProbeAt = performance.now();
    if (first)
      this.log('error', `a commit failed (${this.lastWriteError}): requests are refused with 503 until one succeeds`);
    // Space may be why: what noise holds can be given back to verified entries.
    void this.shed();
    this.reportState();
  }

  /** Whether a /v1 request may run: its entry would be committed without evicting verified history. */
  accepting(): boolean {
    if (this.lastWriteError !== null && !this.probe()) return false;
    const v = this.totals.verified;
    if (v.bytes >= this.maxBytes || v.rows >= this.maxRows) return false;
    // Noise never costs a verified request its answer: at the line, what noise is left goes first, now.
    if (this.footprintBytes() >= this.refuseAtBytes())
      this.shedNow(() => this.footprintBytes() >= this.refuseAtBytes());
    if (this.footprintBytes() >= this.refuseAtBytes()) return false;
    if (this.lowOnSpace()) return this.store.reusableBytes() >= LOW_SPACE_RESERVE_BYTES;
    return true;
  }

  /** Rows and bytes of each class as committed (the gateway's metrics read them on every scrape; no copy, no probe). */
  classTotals(): Readonly<Record<JournalClass, Readonly<ClassTotals>>> {
    return this.totals;
  }

  /** The journal on DATA_DIR: its pages in gateway.db, the WAL's share and the WAL's index. */
  footprintBytes(): number {
    return this.journalPages * this.pageSize + this.walShareBytes + this.store.shmBytes;
  }

  private shedAtBytes(): number {
    return this.maxBytes - this.marginBytes;
  }

  private refuseAtBytes(): number {
    return this.maxBytes - Math.floor(this.marginBytes / 2);
  }

  status(): JournalStatus {
    const accepting = this.accepting();
    const reasons: JournalReason[] = [];
    const avisos: string[] = [];
    const v = this.totals.verified;
    if (this.lastWriteError !== null) {
      reasons.push('write_failed');
      avisos.push(`Falha ao gravar o journal (${this.lastWriteError}): requisicoes recusadas com 503.`);
    }
    if (v.bytes >= this.maxBytes || v.rows >= this.maxRows) {
      reasons.push('verified_full');
      avisos.push(
        `Journal cheio de entradas verificadas dentro da retencao: /v1 responde 503. Aumente AUDIT_MAX_BYTES/AUDIT_MAX_ROWS. ${JOURNAL_REMEDIES_AVISO}`,
      );
    } else if (v.bytes >= this.maxBytes * WARN_SHARE || v.rows >= this.maxRows * WARN_SHARE) {
      reasons.push('verified_near_full');
      avisos.push(
        `Journal acima de ${Math.round(WARN_SHARE * 100)}% do limite com entradas verificadas. ${JOURNAL_REMEDIES_AVISO}`,
      );
    }
    const footprint = this.footprintBytes();
    if (footprint >= this.refuseAtBytes()) {
      reasons.push('disk_full');
      avisos.push(
        `Arquivos do journal em DATA_DIR (${footprint} bytes com o WAL) no limite de AUDIT_MAX_BYTES (${this.maxBytes}): /v1 responde 503. Aumente AUDIT_MAX_BYTES. ${JOURNAL_REMEDIES_AVISO}`,
      );
    } else if (footprint >= this.maxBytes * WARN_SHARE) {
      reasons.push('disk_near_full');
      avisos.push(
        `Arquivos do journal em DATA_DIR acima de ${Math.round(WARN_SHARE * 100)}% de AUDIT_MAX_BYTES (${footprint} de ${this.maxBytes} bytes). ${JOURNAL_REMEDIES_AVISO}`,
      );
    }
    const free = this.currentFreeBytes();
    if (free !== null && free < this.minFreeBytes) {
      reasons.push('low_space');
      avisos.push(
        `Pouco espaco livre em DATA_DIR (${free} bytes, minimo ${this.minFreeBytes}): ruido descartado; sem paginas livres, /v1 responde 503.`,
      );
    } else if (free !== null && free < 2 * this.minFreeBytes) {
      reasons.push('near_low_space');
      avisos.push(`Espaco livre em DATA_DIR perto do minimo (${free} bytes).`);
    }
    if (this.lastShedAt !== null && performance.now() - this.lastShedAt < RECENT_SHED_MS) {
      reasons.push('noise_shed');
      avisos.push('Ruido nao autenticado descartado para manter o journal dentro do limite.');
    }
    return {
      state: this.stateOf(accepting, reasons.length > 0),
      reasons,
      avisos,
      accepting,
      max_bytes: this.maxBytes,
      max_rows: this.maxRows,
      min_free_bytes: this.minFreeBytes,
      noise_cap_bytes: Math.floor(this.maxBytes * NOISE_SHARE),
      totals: structuredClone(this.totals),
      disk: {
        pages_bytes: this.journalPages * this.pageSize,
        wal_share_bytes: this.walShareBytes,
        shm_bytes: this.store.shmBytes,
        footprint_bytes: footprint,
        shed_at_bytes: this.shedAtBytes(),
        refuse_at_bytes: this.refuseAtBytes(),
      },
      free_bytes: free,
      last_shed_at:
        this.lastShedAt === null ? null : new Date(Date.now() - (performance.now() - this.lastShedAt)).toISOString(),
      shed_rows_total: this.shedRowsTotal,
      last_write_error: this.lastWriteError,
    };
  }

  /**
   * After a failed commit, a later batch that only counts on in existing rows may commit while a new
   * entry still would not fit: so the failing state ends only when a probe the size of a large entry
   * commits (and is deleted), at most once a second.
   */
  private probe(): boolean {
    const t = performance.now();
    if (this.probing || t - this.lastProbeAt < PROBE_INTERVAL_MS) return false;
    this.lastProbeAt = t;
    const passed = this.store.probe(PROBE_BYTES);
    if (passed instanceof Promise) {
      // An asynchronous store: requests are refused until the probe, off their path, has passed.
      this.probing = true;
      passed.then(
        (ok) => {
          this.probing = false;
          if (ok) this.recovered();
        },
        () => {
          this.probing = false;
        },
      );
      return false;
    }
    if (!passed) return false;
    this.recovered();
    return true;
  }

  private recovered(): void {
    this.lastWriteError = null;
    this.log('info', 'the journal takes writes again');
    for (const listener of this.recoveredListeners) listener();
    this.reportState();
  }

  /** Runs `listener` each time the journal takes writes again after a failed commit. */
  onRecovered(listener: () => void): void {
    this.recoveredListeners.push(listener);
  }

  /** Whether noise should go: past its share, past a cap, past the disk line, or the disk low. */
  overBudget(): boolean {
    const noise = this.noise();
    if (noise.rows === 0) return false;
    if (noise.bytes > this.maxBytes * NOISE_SHARE || noise.rows > this.maxRows * NOISE_SHARE) return true;
    const all = this.all();
    if (all.bytes > this.maxBytes || all.rows > this.maxRows) return true;
    if (this.footprintBytes() > this.shedAtBytes()) return true;
    return this.lowOnSpace();
  }

  /**
   * Deletes the oldest noise, unattributed groups first, then unverified refusals, in short transactions
   * with a turn of the event loop between them (requests go on), until the budget holds. One run at a
   * time; resolves to the rows deleted.
   */
  shed(options: { chunkRows?: number; pauseMs?: number } = {}): Promise<number> {
    this.shedding ??= this.runShed(options.chunkRows ?? 500, options.pauseMs ?? 0).finally(() => {
      this.shedding = null;
    });
    return this.shedding;
  }

  /**
   * Sheds noise at once, oldest first, while `needed` says so and noise is left (the background shedding
   * may lag behind a flood); a storage error stops it (the commit path reports those).
   */
  private shedNow(needed: () => boolean): void {
    // An asynchronous store cannot shed on the request's path: the background shedding does, and the request is refused meanwhile.
    if (this.store.shared) {
      void this.shed();
      return;
    }
    let deleted = 0;
    try {
      while (this.store.isOpen() && needed() && this.noise().rows > 0) {
        const n = this.deleteNoiseChunk(500) as number;
        if (n === 0) break;
        deleted += n;
      }
    } catch {
      // Reported by the next commit that fails, if the file takes no writes.
    }
    if (deleted > 0) this.recordShed(deleted);
  }

  /** One chunk of the oldest noise: unattributed groups first, then unverified refusals. */
  private deleteNoiseChunk(chunkRows: number): number | Promise<number> {
    return this.totals.unattributed.rows > 0
      ? this.deleteChunk('shed_groups', null, this.chunkRows('unattributed', chunkRows))
      : this.deleteChunk('shed_unverified', null, this.chunkRows('unverified', chunkRows));
  }

  private recordShed(deleted: number): void {
    this.lastShedAt = performance.now();
    this.shedRowsTotal += deleted;
    this.log('warn', `${deleted} unauthenticated entries shed to keep the journal within its budget`);
  }

  /**
   * Deletes every entry older than `cutoffIso`, whatever its class (the spec's 30-day retention): at once on
   * gateway.db (the number deleted), as a promise on an asynchronous store.
   */
  purgeOlderThan(cutoffIso: string): number | Promise<number> {
    return allSettledLoop(
      () => [
        this.deleteChunk('purge_log', cutoffIso, this.chunkRows('verified', 2000)),
        this.deleteChunk('purge_groups', cutoffIso.slice(0, 16), this.chunkRows('unattributed', 2000)),
      ],
      (deleted) => deleted > 0,
    );
  }

  /** Rows of `kind` one deletion may take: at most `max`, and within a transaction's share of the WAL. */
  private chunkRows(kind: JournalClass, max: number): number {
    const { rows, bytes } = this.totals[kind];
    const average = rows > 0 ? bytes / rows : 1;
    return Math.max(1, Math.min(max, this.batchEntries, Math.floor(this.batchBytes / average)));
  }

  /** One deletion, its totals and the pages it gave back, in one transaction; returns the rows deleted. */
  private deleteChunk(what: JournalDeletion, parameter: string | null, limit: number): number | Promise<number> {
    const applied = (chunk: DeletedChunk) => {
      if (chunk.rows > 0) {
        for (const kind of JOURNAL_CLASSES) {
          this.totals[kind].rows += chunk.delta[kind].rows;
          this.totals[kind].bytes += chunk.delta[kind].bytes;
        }
      }
      this.journalPages += chunk.pages;
      return chunk.rows;
    };
    this.changeEpoch += 1;
    const chunk = this.store.deleteChunk(what, parameter, limit);
    if (!(chunk instanceof Promise)) return applied(chunk);
    const done = this.changeStarted();
    return chunk.then(applied).finally(done);
  }

  private async runShed(chunkRows: number, pauseMs: number): Promise<number> {
    let deleted = 0;
    const lowSpace = () => this.lowOnSpace();
    try {
      while (this.store.isOpen() && (this.overBudget() || (lowSpace() && this.noise().rows > 0))) {
        const n = await this.deleteNoiseChunk(chunkRows);
        if (n === 0) break;
        deleted += n;
        // Requests run between two chunks (a chunk is one short transaction): a timer's pause, or just a turn of the event loop.
        await (pauseMs > 0 ? sleep(pauseMs) : new Promise((resolve) => setImmediate(resolve)));
      }
    } catch (error) {
      this.log('error', `shedding stopped: ${(error as Error).message}`);
    }
    if (deleted > 0) this.recordShed(deleted);
    this.reportState();
    return deleted;
  }

  private noise(): ClassTotals {
    const u = this.totals.unverified;
    const g = this.totals.unattributed;
    return { rows: u.rows + g.rows, bytes: u.bytes + g.bytes };
  }

  private all(): ClassTotals {
    const n = this.noise();
    return { rows: n.rows + this.totals.verified.rows, bytes: n.bytes + this.totals.verified.bytes };
  }

  private currentFreeBytes(): number | null {
    if (this.options.dataDir === null) return null;
    const t = performance.now();
    if (t - this.freeCheckedAt >= FREE_SPACE_CHECK_MS) {
      this.freeCheckedAt = t;
      try {
        this.freeBytes = this.freeBytesOf(this.options.dataDir);
      } catch {
        this.freeBytes = null;
      }
    }
    return this.freeBytes;
  }

  private lowOnSpace(): boolean {
    const free = this.currentFreeBytes();
    return free !== null && free < this.minFreeBytes;
  }

  private stateOf(accepting: boolean, warned: boolean): JournalState {
    return this.lastWriteError !== null ? 'failing' : !accepting ? 'full' : warned ? 'warning' : 'ok';
  }

  /** Cheap enough for every batch: the warning thresholds without building their messages. */
  private currentState(): JournalState {
    const v = this.totals.verified;
    const free = this.currentFreeBytes();
    const warned =
      v.bytes >= this.maxBytes * WARN_SHARE ||
      v.rows >= this.maxRows * WARN_SHARE ||
      this.footprintBytes() >= this.maxBytes * WARN_SHARE ||
      (free !== null && free < 2 * this.minFreeBytes) ||
      (this.lastShedAt !== null && performance.now() - this.lastShedAt < RECENT_SHED_MS);
    return this.stateOf(this.accepting(), warned);
  }

  /** One log line per change of state, never one per request. */
  private reportState(): void {
    const state = this.currentState();
    if (state === this.reportedState) return;
    const previous = this.reportedState;
    this.reportedState = state;
    if (state === 'ok') this.log('info', `state ${previous} -> ok`);
    else
      this.log(
        state === 'warning' ? 'warn' : 'error',
        `state ${previous} -> ${state}: ${this.status().avisos.join(' ')}`,
      );
  }
}
