import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { medicoListItem } from '../../../contracts/schemas/medicos.ts';
import { convenioItem, unidadeItem } from '../../../contracts/schemas/catalogos.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import { slugParams } from '../../../contracts/admin/common.ts';
import {
  createTenantSchema,
  medicosQuery,
  tenantResetSchema,
  tenantSettingsSchema,
  type CatalogOption,
  type MedicoOption,
  type tenantCreated,
  type TenantResetPolicyView,
  type TenantResetResult,
  type TenantSettingsView,
  type TenantView,
} from '../../../contracts/admin/tenants.ts';
import { clinicSettings } from '../../../contracts/backend/settings.ts';
import { tenantPath } from '../../../contracts/backend/tenants.ts';
import { resetTenant, tenantResetRefusal, TENANT_RESET_OPT_IN } from '../../tenants/tenant-reset.ts';
import { allowTenantResetFrom } from '../../config.ts';
import { countActiveKeysByTenant } from '../../keys/keys.repository.ts';
import { renameTenant } from '../../tenants/tenants.repository.ts';

/**
 * Whether this appliance resets clinics (issue 19): always in development mode, in production only with
 * ALLOW_TENANT_RESET=true. Development mode is read from the appliance clock's flag, which is
 * `config.appEnv === 'development'` (the rule the clock control follows; an app built without a clock
 * counts as production); the opt-in from the environment once, at start, like the ADMIN_* policies,
 * because no config reaches the console API.
 */
export function tenantResetPolicy(
  deps: Pick<AdminDeps, 'clock'>,
  env: NodeJS.ProcessEnv = process.env,
): TenantResetPolicyView {
  const development = deps.clock.enabled;
  const optIn = allowTenantResetFrom(env);
  return {
    allowed: tenantResetRefusal({ development, optIn }) === null,
    app_env: development ? 'development' : 'production',
    opt_in: optIn,
    opt_in_variable: TENANT_RESET_OPT_IN,
  };
}

/**
 * A reset from the console or the automation route: refused in production without the opt-in (403
 * OPERATION_NOT_ALLOWED, as the clock control), then back to the first-start state
 * (server/tenants/tenant-reset.ts). Audited as `tenant.reset` with what it restored, refusals included,
 * under the clinic; the journal itself is never touched.
 */
export async function resetRoute(
  deps: AdminDeps,
  policy: TenantResetPolicyView,
  request: FastifyRequest,
  slug: string,
  via: Record<string, unknown>,
): Promise<TenantResetResult> {
  const tenant = await deps.tenants.get(slug);
  request.adminAudit = { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null, detail: { ...via, slug } };
  if (!policy.allowed) {
    throw new ApiError(
      'OPERATION_NOT_ALLOWED',
      `Reset de clinica desativado com APP_ENV=production: defina ${TENANT_RESET_OPT_IN}=true para permiti-lo.`,
      { opt_in_variable: TENANT_RESET_OPT_IN },
    );
  }
  const options = parseInput(tenantResetSchema, request.body);
  request.adminAudit.detail = { ...via, slug, files: options.files };
  if (!tenant) throw notFound();
  const result = await guard(() => resetTenant({ db: deps.db, backend: deps.backend }, slug, options));
  request.adminAudit.detail = { ...request.adminAudit.detail, ...result, journal_kept: true };
  return result;
}

async function requireTenantOf(deps: AdminDeps, slug: string) {
  const tenant = await deps.tenants.get(slug);
  if (!tenant) throw notFound();
  return tenant;
}

/** A clinic's settings, read and changed in backend-sim (its name kept in step in the gateway). */
function settingsRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const requireTenant = (slug: string) => requireTenantOf(deps, slug);
  app.get('/tenants/:slug/settings', async (request): Promise<TenantSettingsView> => {
    const { slug } = parseInput(slugParams, request.params);
    await requireTenant(slug);
    const result = await guard(() =>
      deps.backend.call({ method: 'GET', path: tenantPath(slug, '/settings') }, clinicSettings),
    );
    return result.data;
  });

  app.patch(
    '/tenants/:slug/settings',
    { config: { consoleAction: 'tenant.settings.update' } },
    async (request): Promise<TenantSettingsView> => {
      const { slug } = parseInput(slugParams, request.params);
      const tenant = await requireTenant(slug);
      request.adminAudit = { tenantId: tenant.id, tenantSlug: tenant.slug };
      const input = parseInput(tenantSettingsSchema, request.body);
      if (Object.keys(input).length === 0)
        throw new ApiError('VAL_INVALID_PARAM', 'Nada para alterar.', { field: 'body' });
      const result = await guard(() =>
        deps.backend.call({ method: 'PATCH', path: tenantPath(slug, '/settings'), body: input }, clinicSettings),
      );
      // The clinic's display name lives in both places; keep the gateway's copy in step.
      if (input.nome !== undefined) await renameTenant(deps.db, tenant.id, input.nome);
      return result.data;
    },
  );
}

/** What the settings' pickers offer: the clinic's doctors, units and insurers (backend-sim's lists, whole). */
function pickerRoutes(app: FastifyInstance, deps: AdminDeps): void {
  /** One of the clinic's lists, whole (backend-sim pages up to 1000 rows), each row as the picker shows it. */
  const options = async <S extends z.ZodType, O>(
    slug: string,
    list: '/medicos' | '/unidades' | '/convenios',
    item: S,
    option: (row: z.output<S>) => O,
    query: Record<string, string> = {},
  ): Promise<O[]> => {
    await requireTenantOf(deps, slug);
    const result = await guard(() =>
      deps.backend.call(
        { method: 'GET', path: tenantPath(slug, list), query: { limit: 1000, ...query } },
        z.array(item),
      ),
    );
    return result.data.map(option);
  };

  app.get('/tenants/:slug/medicos', async (request): Promise<MedicoOption[]> => {
    const { slug } = parseInput(slugParams, request.params);
    const { q } = parseInput(medicosQuery, request.query);
    return options(
      slug,
      '/medicos',
      medicoListItem,
      (m): MedicoOption => ({
        id: m.id,
        nome: m.nome,
        especialidade: m.especialidade,
        conselho: m.conselho.sigla ? `${m.conselho.sigla} ${m.conselho.numero}/${m.conselho.uf}` : '',
        papeis: m.papeis,
        ativo: m.ativo,
      }),
      q ? { q } : {},
    );
  });

  // Catalogs for the settings' default pickers (backend-sim's /unidades and /convenios): one option shape.
  const catalogRoute = <S extends z.ZodType<{ id: number; nome: string; ativo: boolean }>>(
    list: '/unidades' | '/convenios',
    item: S,
    detalhe: (row: z.output<S>) => string,
  ) =>
    app.get(
      `/tenants/:slug${list}`,
      async (request): Promise<CatalogOption[]> =>
        options(parseInput(slugParams, request.params).slug, list, item, (row) => ({
          id: row.id,
          nome: row.nome,
          detalhe: detalhe(row),
          ativo: row.ativo,
        })),
    );
  catalogRoute('/unidades', unidadeItem, (u) => [u.cidade, u.uf].filter(Boolean).join('/'));
  catalogRoute('/convenios', convenioItem, (c) => (c.codigo_ans ? `ANS ${c.codigo_ans}` : ''));
}

export default async function tenantRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/tenants', async (): Promise<TenantView[]> => {
    const tenants = await deps.tenants.list();
    const active = await countActiveKeysByTenant(deps.db);
    return tenants.map((t) => ({
      id: t.id,
      slug: t.slug,
      nome: t.nome,
      sandbox: t.is_sandbox === 1,
      status: t.status,
      created_at: t.created_at,
      chaves_ativas: active.get(t.id) ?? 0,
      template: t.template,
      expires_at: t.expires_at,
    }));
  });

  app.post(
    '/tenants',
    { config: { consoleAction: 'tenant.create' } },
    async (request, reply): Promise<z.infer<typeof tenantCreated>> => {
      const input = parseInput(createTenantSchema, request.body);
      const { tenant, backendReady } = await guard(() => deps.tenants.create({ slug: input.slug, nome: input.nome }));
      request.adminAudit = { tenantId: tenant.id, tenantSlug: tenant.slug, detail: { backend_ready: backendReady } };
      reply.status(201);
      return { id: tenant.id, slug: tenant.slug, nome: tenant.nome, backend_ready: backendReady };
    },
  );

  settingsRoutes(app, deps);

  const resetPolicy = tenantResetPolicy(deps);

  app.get('/tenant-reset-policy', async (): Promise<TenantResetPolicyView> => resetPolicy);

  app.post('/tenants/:slug/reset', { config: { consoleAction: 'tenant.reset' } }, async (request) => {
    const { slug } = parseInput(slugParams, request.params);
    return resetRoute(deps, resetPolicy, request, slug, { via: 'console' });
  });

  pickerRoutes(app, deps);
}
