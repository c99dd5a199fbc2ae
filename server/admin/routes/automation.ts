import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminDeps } from '../deps.ts';
import { requireTokenTenant, tokenAllows, type ActiveOperatorToken } from '../../operators/operator-tokens.ts';
import { operatorTokenOf } from '../operator-token-auth.ts';
import { parseInput } from '../http.ts';
import { resetRoute, tenantResetPolicy } from './tenants.ts';
import { slugParams } from '../../../contracts/admin/common.ts';

/**
 * Automation routes (issue 13): for scripts and QA's beforeEach, authenticated by an operator API token
 * (`Authorization: Bearer ce_op_…`, config `operatorToken`) instead of a session: no cookie, so no CSRF.
 * A session does not open them, and a token opens nothing else. A token acts only on the clinics it was
 * issued for (issue 19): another clinic answers 403 ADMIN_FORBIDDEN, whether it exists or not.
 */
export default async function automationRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const resetPolicy = tenantResetPolicy(deps);

  app.post(
    '/automation/tenants/:slug/reset',
    { config: { operatorToken: true, consoleAction: 'tenant.reset' } },
    async (request) => {
      const { slug } = parseInput(slugParams, request.params);
      const { via } = await tokenOnClinic(deps, request, slug);
      return resetRoute(deps, resetPolicy, request, slug, via);
    },
  );
}

/**
 * The automation request's token, refused with 403 ADMIN_FORBIDDEN unless it is allowed on `slug` (the refusal
 * journaled under the clinic when it exists: its operators see who tried), and how the action names it (`via`).
 */
export async function tokenOnClinic(
  deps: AdminDeps,
  request: FastifyRequest,
  slug: string,
): Promise<{ token: ActiveOperatorToken; via: { via: 'operator_token'; token_id: number } }> {
  const token = operatorTokenOf(request);
  const via = { via: 'operator_token' as const, token_id: token.id };
  if (!tokenAllows(token, slug)) {
    const tenant = await deps.tenants.get(slug);
    request.adminAudit = {
      tenantId: tenant?.id ?? null,
      tenantSlug: tenant?.slug ?? null,
      detail: { ...via, slug, token_tenants: token.tenants },
    };
    requireTokenTenant(token, slug);
  }
  return { token, via };
}
