import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApplianceClock } from '../clock.ts';
import type { GatewayDb } from '../db/database.ts';
import type { KeysService } from '../keys/keys.service.ts';
import type { TenantsService } from '../tenants/tenants.service.ts';
import type { Backend } from '../backend/client.ts';
import type { ConsoleAuditSink } from '../audit/console-audit.ts';
import type { AuditStorageStatus } from '../audit/audit-retention.ts';
import type { PresignFaults } from '../storage/storage-faults.ts';
import type { SessionPolicy, SessionStore } from '../operators/sessions.ts';
import type { LockoutPolicy } from '../operators/lockout.ts';
import type { IdempotencyInspection } from '../idempotency/inspection.ts';
import type { JournalPruner } from '../audit/journal-prune.ts';
import type { ProxyConfig } from '../config.ts';

// The console API's options and what its route modules are handed, apart from admin-plugin.ts: the route
// modules import these types, the plugin imports the route modules, and neither imports the other back.

export interface AdminPluginOptions {
  db: GatewayDb;
  keys: KeysService;
  tenants: TenantsService;
  backend: Backend;
  /** The idempotency store's entries, for the inspector (`/keys/:id/idempotency`, `/tenants/:slug/idempotency`). */
  idempotency: IdempotencyInspection;
  /** Presign faults the Presigner consults (`/storage-faults`); a private table when omitted. */
  storageFaults?: PresignFaults;
  lockout?: LockoutPolicy;
  session?: SessionPolicy;
  /** Where console audit entries go: the gateway's audit writer (server/app.ts). */
  auditSink: ConsoleAuditSink;
  /** The audit log's size against its cap (`GET /audit/storage`). */
  auditStorage: () => Promise<AuditStorageStatus>;
  /** The journal's prune (`POST /journal/prune`, development mode only). */
  journalPrune: JournalPruner;
  /** The appliance clock (`/clock`); a disabled one (real time, no control) when omitted. */
  clock?: ApplianceClock;
  /** The contract guard's report (`/contract`, issue 33): the proxy's settings, and what to flush before reading. */
  contract?: { proxy: ProxyConfig | null; flush(): Promise<void> };
  now?: () => number;
}

export interface AdminDeps extends Required<Omit<AdminPluginOptions, 'auditSink' | 'now'>> {
  sessions: SessionStore;
  now: () => number;
  setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void;
  clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void;
}
