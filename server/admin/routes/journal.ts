import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../errors.ts';
import { API_RELEASE } from '../../config.ts';
import type { AdminDeps } from '../deps.ts';
import { NO_BODY, parseInput, parseStrictQuery } from '../http.ts';
import { tokenOnClinic } from './automation.ts';
import { ALL_TENANTS } from '../../../contracts/admin/operator-tokens.ts';
import { slugParams } from '../../../contracts/admin/common.ts';
import { harQuerySchema, receivedQuerySchema, type ReceivedAnswer } from '../../../contracts/admin/journal.ts';
import { queryReceived, type ReceivedScope } from '../../audit/journal-received.ts';
import { journalHar } from '../../audit/har.ts';

/**
 * What the gateway received, and its HAR (issue 30 § 4 and 5), for one clinic: the console's routes (a session;
 * viewers read) and their automation twins (an operator token allowed on the clinic; another clinic answers 403
 * ADMIN_FORBIDDEN whether it exists or not). The HAR export is journaled as the console action `journal.har`.
 */
export default async function journalRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  /** The clinic and what the caller may see besides it (server/audit/journal-received.ts ReceivedScope). */
  async function scopeOf(request: FastifyRequest, viaToken: boolean): Promise<ReceivedScope> {
    const { slug } = parseInput(slugParams, request.params);
    let via: Record<string, unknown> = { via: 'console' };
    let otherClinics: ReceivedScope['otherClinics'] = 'all';
    let unattributedFrom: ReceivedScope['unattributedFrom'] = 'all';
    if (viaToken) {
      const allowed = await tokenOnClinic(deps, request, slug);
      const token = allowed.token;
      via = allowed.via;
      otherClinics = token.tenants === ALL_TENANTS ? 'all' : token.tenants.filter((t) => t !== slug);
      // A token sees the requests that reached no clinic only from its own address (its own test runner).
      unattributedFrom = request.ip;
    }
    const tenant = await deps.tenants.get(slug);
    request.adminAudit = { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null, detail: { ...via, slug } };
    if (!tenant) throw notFound();
    await app.auditWriter.flush();
    return { tenantId: tenant.id, tenantSlug: tenant.slug, otherClinics, unattributedFrom };
  }

  const received =
    (viaToken: boolean) =>
    async (request: FastifyRequest): Promise<ReceivedAnswer> => {
      const q = parseStrictQuery(receivedQuerySchema, request.query);
      const scope = await scopeOf(request, viaToken);
      const { limit, ...filter } = q;
      return queryReceived(deps.db, scope, filter, limit);
    };

  const har = (viaToken: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const q = parseStrictQuery(harQuerySchema, request.query);
    const scope = await scopeOf(request, viaToken);
    const { limit, ...filter } = q;
    const exported = await journalHar(deps.db, { id: scope.tenantId, slug: scope.tenantSlug }, filter, limit, {
      origin: `${request.protocol}://${request.host}`,
      release: API_RELEASE,
      now: new Date(deps.clock.now()),
    });
    request.adminAudit!.detail = {
      ...(request.adminAudit!.detail as Record<string, unknown>),
      filter,
      entries: exported.entries,
      truncated: exported.truncated,
    };
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="${exported.filename}"`)
      .send(exported.text);
  };

  app.get('/tenants/:slug/journal/received', { bodyLimit: NO_BODY }, received(false));
  app.get('/tenants/:slug/journal/har', { bodyLimit: NO_BODY, config: { consoleAction: 'journal.har' } }, har(false));
  app.get(
    '/automation/tenants/:slug/journal/received',
    { bodyLimit: NO_BODY, config: { operatorToken: true } },
    received(true),
  );
  app.get(
    '/automation/tenants/:slug/journal/har',
    { bodyLimit: NO_BODY, config: { operatorToken: true, consoleAction: 'journal.har' } },
    har(true),
  );
}
