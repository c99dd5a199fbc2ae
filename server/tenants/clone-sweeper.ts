import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ApplianceClock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { buildConsoleAuditEntry, type ConsoleAuditSink } from '../audit/console-audit.ts';
import { clinicsToSweep, dropTenant, type CloneDeps } from './clones.ts';

/** How often each gateway looks for expired clones (also at start and whenever the clock is moved). */
export const CLONE_SWEEP_INTERVAL_MS = 30_000;

/**
 * Drops the clones whose time to live is over, the drops a dead gateway left half-done and the clones that
 * never finished; each drop journaled as `tenant.drop` (`detail.via: "sweeper"`). Cluster-safe: every gateway
 * sweeps, and the drop's claim (one UPDATE) lets one of them drop a given clinic; the others skip it.
 */
export async function sweepClones(
  deps: CloneDeps & { audit: ConsoleAuditSink },
): Promise<{ dropped: string[]; failed: string[] }> {
  const dropped: string[] = [];
  const failed: string[] = [];
  for (const slug of await clinicsToSweep(deps.db, deps.now())) {
    const started = performance.now();
    try {
      const result = await dropTenant(deps, slug);
      dropped.push(slug);
      await deps.audit(
        buildConsoleAuditEntry({
          requestId: `sweep-${randomUUID()}`,
          action: 'tenant.drop',
          operatorId: null,
          method: 'DELETE',
          path: `/admin/api/tenants/${slug}`,
          status: 200,
          errorCode: null,
          durationMs: performance.now() - started,
          clientIp: '127.0.0.1',
          subject: { tenantSlug: slug, detail: { via: 'sweeper', ...result } },
          at: new Date(deps.now()),
        }),
      );
    } catch (error) {
      // Another gateway holds the claim: it drops this one.
      if (error instanceof ApiError && error.code === 'CONCURRENT_REQUEST') continue;
      failed.push(slug);
    }
  }
  return { dropped, failed };
}

/** At start, every CLONE_SWEEP_INTERVAL_MS and on a clock move; stopped with the app. */
export function scheduleCloneSweeper(
  app: FastifyInstance,
  clock: ApplianceClock,
  deps: CloneDeps & { audit: ConsoleAuditSink },
): void {
  let running: Promise<unknown> | null = null;
  let closed = false;
  const sweep = () => {
    if (running || closed) return;
    running = sweepClones(deps)
      .then(({ failed }) => {
        if (failed.length > 0) app.log.warn({ count: failed.length }, 'clone sweep: some drops failed; retried');
      })
      .catch((error: Error) => app.log.error({ err: error }, 'clone sweep failed'))
      .finally(() => {
        running = null;
      });
  };
  app.addHook('onReady', async () => sweep());
  const timer = setInterval(sweep, CLONE_SWEEP_INTERVAL_MS).unref();
  const stop = clock.onChange(sweep);
  app.addHook('onClose', async () => {
    closed = true;
    clearInterval(timer);
    stop();
    await running;
  });
}
