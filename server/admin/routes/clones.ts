import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import { ApiError, invalidParam, notFound } from '../../errors.ts';
import { slugParams } from '../../../contracts/admin/common.ts';
import {
  CLONE_TTL_DEFAULT,
  CLONE_TTL_MAX_MS,
  cloneTenantSchema,
  dropTenantSchema,
  type ClonePolicyView,
  type TenantCloned,
  type TenantDropped,
} from '../../../contracts/admin/clones.ts';
import { ephemeralClinicsFrom } from '../../config.ts';
import {
  cloneTenant,
  dropTenant,
  ephemeralClinicsRefusal,
  EPHEMERAL_CLINICS_OPT_IN,
  type CloneDeps,
} from '../../tenants/clones.ts';
import { requireTokenTenant, type ActiveOperatorToken } from '../../operators/operator-tokens.ts';
import { operatorTokenOf } from '../operator-token-auth.ts';

/** Bodies are a few short fields. */
const BODY_LIMIT = 4096;

/** Whether this appliance makes and drops ephemeral clinics, and its limits (read once, at start). */
export function clonePolicy(deps: Pick<AdminDeps, 'clock'>, env: NodeJS.ProcessEnv = process.env): ClonePolicyView {
  const development = deps.clock.enabled;
  const { optIn, max } = ephemeralClinicsFrom(env);
  return {
    allowed: ephemeralClinicsRefusal({ development, optIn }) === null,
    app_env: development ? 'development' : 'production',
    opt_in: optIn,
    opt_in_variable: EPHEMERAL_CLINICS_OPT_IN,
    max,
    ttl_default: CLONE_TTL_DEFAULT,
    ttl_max: `${CLONE_TTL_MAX_MS / 3_600_000}h`,
  };
}

function requireAllowed(policy: ClonePolicyView, what: string): void {
  if (policy.allowed) return;
  throw new ApiError(
    'OPERATION_NOT_ALLOWED',
    `${what} desativado com APP_ENV=production: defina ${EPHEMERAL_CLINICS_OPT_IN}=true para permiti-lo.`,
    { opt_in_variable: EPHEMERAL_CLINICS_OPT_IN },
  );
}

/**
 * Ephemeral clinics (issue 30) on the console API and its automation twins: `POST /tenants/:slug/clone`
 * (`tenant.clone`) and `DELETE /tenants/:slug` (`tenant.drop`). A token needs the `clone` permission and the
 * template among its clinics to clone; it may then act on what it cloned (operator-tokens.ts tokenAllows). A
 * permanent clinic is dropped only from the console or the CLI, with its slug typed back (`confirm`).
 */
export default async function cloneRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const policy = clonePolicy(deps);
  const cloneDeps: CloneDeps = {
    db: deps.db,
    backend: deps.backend,
    keys: deps.keys,
    now: () => deps.clock.now(),
    onChange: () => deps.keys.invalidate(),
  };

  const clone = async (
    request: FastifyRequest,
    reply: FastifyReply,
    via: Record<string, unknown>,
    token?: ActiveOperatorToken,
  ): Promise<TenantCloned> => {
    const { slug: template } = parseInput(slugParams, request.params);
    const tenant = await deps.tenants.get(template);
    request.adminAudit = {
      tenantId: tenant?.id ?? null,
      tenantSlug: tenant?.slug ?? null,
      detail: { ...via, template },
    };
    if (token) {
      if (!token.clone) {
        throw new ApiError(
          'ADMIN_FORBIDDEN',
          'Este token de operador nao pode criar clinicas efemeras (permissao clone).',
          {
            field: 'clone',
          },
        );
      }
      requireTokenTenant(token, template);
    }
    requireAllowed(policy, 'Clinicas efemeras:');
    const input = parseInput(cloneTenantSchema, request.body);
    request.adminAudit.detail = {
      ...via,
      template,
      snapshot: input.snapshot ?? null,
      ttl: input.ttl,
      medico_id: input.medico_id,
    };
    if (!tenant) throw notFound();
    const result = await guard(() =>
      cloneTenant(cloneDeps, {
        template,
        snapshot: input.snapshot,
        slug: input.slug,
        ttl: input.ttl,
        medicoId: input.medico_id,
        tokenId: token?.id,
        max: policy.max,
      }),
    );
    const { api_secret: _secret, api_key: _key, ...said } = result;
    request.adminAudit.detail = { ...request.adminAudit.detail, ...said };
    reply.header('cache-control', 'no-store');
    reply.status(201);
    return result;
  };

  const drop = async (
    request: FastifyRequest,
    via: Record<string, unknown>,
    token?: ActiveOperatorToken,
  ): Promise<TenantDropped> => {
    const { slug } = parseInput(slugParams, request.params);
    const tenant = await deps.tenants.get(slug);
    request.adminAudit = { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null, detail: { ...via, slug } };
    if (token) requireTokenTenant(token, slug);
    requireAllowed(policy, 'Remocao de clinicas:');
    const input = parseInput(dropTenantSchema, request.body);
    if (!tenant) throw notFound();
    if (tenant.expires_at === null) {
      if (token)
        throw new ApiError('OPERATION_NOT_ALLOWED', 'Um token remove so clinicas efemeras; esta e permanente.', {
          field: 'slug',
        });
      if (input.confirm !== slug)
        throw invalidParam('confirm', `Clinica permanente: confirme digitando o slug ("confirm": "${slug}").`);
    }
    const { template: _template, ...result } = await guard(() => dropTenant(cloneDeps, slug));
    request.adminAudit.detail = { ...request.adminAudit.detail, ...result };
    return result;
  };

  app.get('/ephemeral-clinics-policy', async (): Promise<ClonePolicyView> => policy);

  app.post(
    '/tenants/:slug/clone',
    { bodyLimit: BODY_LIMIT, config: { consoleAction: 'tenant.clone' } },
    async (request, reply) => clone(request, reply, { via: 'console' }),
  );
  app.delete('/tenants/:slug', { bodyLimit: BODY_LIMIT, config: { consoleAction: 'tenant.drop' } }, async (request) =>
    drop(request, { via: 'console' }),
  );

  app.post(
    '/automation/tenants/:slug/clone',
    { bodyLimit: BODY_LIMIT, config: { operatorToken: true, consoleAction: 'tenant.clone' } },
    async (request, reply) => {
      const token = operatorTokenOf(request);
      return clone(request, reply, { via: 'operator_token', token_id: token.id }, token);
    },
  );
  app.delete(
    '/automation/tenants/:slug',
    { bodyLimit: BODY_LIMIT, config: { operatorToken: true, consoleAction: 'tenant.drop' } },
    async (request) => {
      const token = operatorTokenOf(request);
      return drop(request, { via: 'operator_token', token_id: token.id }, token);
    },
  );
}
