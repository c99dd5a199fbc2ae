import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { NO_BODY, parseInput, parseStrictQuery } from '../http.ts';
import { tokenOnClinic } from './automation.ts';
import { operatorTokenOf } from '../operator-token-auth.ts';
import { ALL_TENANTS } from '../../../contracts/admin/operator-tokens.ts';
import { slugParams } from '../../../contracts/admin/common.ts';
import {
  keyStatsQuerySchema,
  statsQuerySchema,
  type AlertView,
  type KeyStats,
  type StatsAnswer,
} from '../../../contracts/admin/stats.ts';
import { keyTrafficStats, trafficStats } from '../../audit/journal-stats.ts';
import { currentAlerts } from '../../alerts/alerts.ts';

/**
 * Traffic charts and alerts (issue 31 § 3 and § 5; contracts/admin/stats.ts): the console's routes (a session;
 * viewers read) and their automation twins (an operator token allowed on the clinic; its alerts are its clinics').
 * Every answer is read after the journal's queued entries are committed (read-your-writes).
 */
export default async function statsRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  async function clinicOf(request: FastifyRequest, viaToken: boolean) {
    const { slug } = parseInput(slugParams, request.params);
    if (viaToken) await tokenOnClinic(deps, request, slug);
    const tenant = await deps.tenants.get(slug);
    if (!tenant) throw notFound();
    await app.auditWriter.flush();
    return tenant;
  }

  const stats =
    (viaToken: boolean) =>
    async (request: FastifyRequest): Promise<StatsAnswer> => {
      const q = parseStrictQuery(statsQuerySchema, request.query);
      const tenant = await clinicOf(request, viaToken);
      if (q.chave_id !== undefined) {
        const key = await deps.db
          .selectFrom('api_keys')
          .select('id')
          .where('id', '=', q.chave_id)
          .where('tenant_id', '=', tenant.id)
          .executeTakeFirst();
        if (!key) throw notFound();
      }
      return trafficStats(
        deps.db,
        { tenantId: tenant.id, tenantSlug: tenant.slug, chaveId: q.chave_id ?? null },
        q.window,
        deps.clock.now(),
      );
    };

  const keys =
    (viaToken: boolean) =>
    async (request: FastifyRequest): Promise<KeyStats[]> => {
      const q = parseStrictQuery(keyStatsQuerySchema, request.query);
      const tenant = await clinicOf(request, viaToken);
      return keyTrafficStats(deps.db, tenant.id, q.window, deps.clock.now());
    };

  const alerts =
    (viaToken: boolean) =>
    async (request: FastifyRequest): Promise<AlertView[]> => {
      let tenants: 'all' | string[] = 'all';
      if (viaToken) {
        const token = operatorTokenOf(request);
        tenants = token.tenants === ALL_TENANTS ? 'all' : token.tenants;
      }
      await app.auditWriter.flush();
      return currentAlerts(deps.db, deps.clock.now(), tenants);
    };

  app.get('/tenants/:slug/stats', { bodyLimit: NO_BODY }, stats(false));
  app.get('/tenants/:slug/stats/keys', { bodyLimit: NO_BODY }, keys(false));
  app.get('/alerts', { bodyLimit: NO_BODY }, alerts(false));
  app.get('/automation/tenants/:slug/stats', { bodyLimit: NO_BODY, config: { operatorToken: true } }, stats(true));
  app.get('/automation/tenants/:slug/stats/keys', { bodyLimit: NO_BODY, config: { operatorToken: true } }, keys(true));
  app.get('/automation/alerts', { bodyLimit: NO_BODY, config: { operatorToken: true } }, alerts(true));
}
