import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from '../admin-plugin.ts';
import { operatorTokenOf } from '../operator-tokens.ts';
import { parseInput } from '../http.ts';
import { tenantResetSchema } from '../reset-schemas.ts';
import { resetRoute, slugParams } from './tenants.ts';

/**
 * Automation routes (issue 13): for scripts and QA's beforeEach, authenticated by an operator API token
 * (`Authorization: Bearer ce_op_…`, config `operatorToken`) instead of a session: no cookie, so no CSRF.
 * A session does not open them, and a token opens nothing else.
 */
export default async function automationRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.post('/automation/tenants/:slug/reset', { config: { operatorToken: true, consoleAction: 'tenant.reset' } }, async (request) => {
    const { slug } = parseInput(slugParams, request.params);
    const token = operatorTokenOf(request);
    return resetRoute(app, deps, request, slug, parseInput(tenantResetSchema, request.body), { via: 'operator_token', token_id: token.id });
  });
}
