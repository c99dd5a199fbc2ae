import type { FastifyPluginAsync } from 'fastify';
import type { BackendConfig } from './config.ts';
import type { FaultStore } from './faults.ts';
import type { FileStore } from './storage.ts';
import type { TenantRegistry } from './tenants.ts';
import type { TenantGate } from './tenant-gate.ts';

// Apart from app.ts, which imports the route modules: they import this, and nothing of theirs imports app.ts back.

/** What route modules need besides the request. */
export interface BackendDeps {
  config: BackendConfig;
  tenants: TenantRegistry;
  faults: FaultStore;
  files: FileStore;
  /** Holds a clinic's requests while its state is swapped (restores, imports, resets with files). */
  gate: TenantGate;
  now(): string;
  today(): string;
  clock(): Date;
  /** now / today / HH:MM:SS read from one clock tick. */
  stamp(): { now: string; today: string; hora: string };
}

/** A route module: given the deps, the plugin that registers its routes. */
export type BackendRoutes = (deps: BackendDeps) => FastifyPluginAsync;
