import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import { idParams, slugParams } from '../../../contracts/admin/common.ts';
import {
  issueKeySchema,
  keyListQuery,
  updateKeySchema,
  type IssuedKey,
  type KeyListMeta,
  type KeyView,
} from '../../../contracts/admin/keys.ts';
import { tenantPath } from '../../../contracts/backend/tenants.ts';
import { addMeta } from '../../http/envelope.ts';
import { doctorIdsMatching } from '../../keys/doctor-search.ts';
import { tokenOnClinic } from './automation.ts';

type Via = { via: 'console' } | { via: 'operator_token'; token_id: number };

export default async function keyRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const requireTenant = async (slug: string) => {
    const tenant = await deps.tenants.get(slug);
    if (!tenant) throw notFound();
    return tenant;
  };

  /** The key and its tenant; also records them as the subject of the action being audited. */
  const loadKey = async (request: { params: unknown; adminAudit: unknown }, id: number) => {
    const key = await guard(() => deps.keys.get(id));
    const tenant = (await deps.tenants.list()).find((t) => t.id === key.tenant_id);
    (request as { adminAudit: unknown }).adminAudit = {
      tenantId: key.tenant_id,
      tenantSlug: tenant?.slug ?? null,
      chaveId: id,
    };
    return { key, tenantSlug: tenant?.slug ?? '' };
  };

  /** A doctor can be bound only if it exists in that clinic. */
  const requireMedico = async (slug: string, medicoId: number) => {
    if (medicoId === 0) return;
    try {
      await deps.backend.call({ method: 'GET', path: tenantPath(slug, `/medicos/${medicoId}`) }, z.unknown());
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        throw new ApiError('INVALID_REFERENCE', 'Medico inexistente nesta clinica.', { field: 'medico_id' });
      }
      await guard(() => Promise.reject(error));
    }
  };

  /**
   * The clinic's keys, filtered (q, scope, status, expiring) and paged (limit, offset): the answer stays the array
   * of keys (older callers: the playground's picker), `meta` says how many match in all (issue 31 § 3).
   */
  const list = async (request: FastifyRequest, reply: FastifyReply, slug: string): Promise<KeyView[]> => {
    const query = parseInput(keyListQuery, request.query);
    await requireTenant(slug);
    const medicoIds = await doctorIdsMatching(deps.backend, slug, query.q);
    const { keys, total } = await guard(() => deps.keys.search(slug, { ...query, medicoIds }));
    addMeta(reply, { total, limit: query.limit ?? null, offset: query.offset } satisfies KeyListMeta);
    return keys;
  };

  const issue = async (request: FastifyRequest, reply: FastifyReply, slug: string, via: Via): Promise<IssuedKey> => {
    const tenant = await requireTenant(slug);
    request.adminAudit = { tenantId: tenant.id, tenantSlug: tenant.slug };
    const input = parseInput(issueKeySchema, request.body);
    await requireMedico(slug, input.medico_id);
    const issued = await guard(() =>
      deps.keys.create({
        tenantSlug: slug,
        scopes: input.scopes,
        medicoId: input.medico_id,
        label: input.label,
        expiresAt: input.expires_at,
        expiresInDays: input.expires_in_days,
      }),
    );
    const key = await deps.keys.get(issued.chave_id);
    request.adminAudit = {
      tenantId: tenant.id,
      tenantSlug: tenant.slug,
      chaveId: issued.chave_id,
      detail: {
        escopos: input.scopes,
        medico_id: input.medico_id,
        expires_at: key.expires_at,
        ...(via.via === 'console' ? {} : via),
      },
    };
    reply.status(201);
    return { ...issued, key };
  };

  const update = async (request: FastifyRequest, id: number, via: Via): Promise<KeyView> => {
    const { key, tenantSlug } = await loadKey(request, id);
    const input = parseInput(updateKeySchema, request.body);
    if (input.medico_id !== undefined) await requireMedico(tenantSlug, input.medico_id);
    const updated = await guard(() =>
      deps.keys.update(id, {
        scopes: input.scopes,
        medicoId: input.medico_id,
        label: input.label,
        expiresAt: input.expires_at,
        expiresInDays: input.expires_in_days,
      }),
    );
    const shown = (k: KeyView) => ({
      escopos: k.escopos,
      medico_id: k.medico_id,
      label: k.label,
      expires_at: k.expires_at,
    });
    request.adminAudit = {
      ...request.adminAudit,
      detail: { antes: shown(key), depois: shown(updated), ...(via.via === 'console' ? {} : via) },
    };
    return updated;
  };

  app.get('/tenants/:slug/keys', async (request, reply): Promise<KeyView[]> => {
    const { slug } = parseInput(slugParams, request.params);
    return list(request, reply, slug);
  });

  app.post(
    '/tenants/:slug/keys',
    { config: { consoleAction: 'key.create' } },
    async (request, reply): Promise<IssuedKey> => {
      const { slug } = parseInput(slugParams, request.params);
      return issue(request, reply, slug, { via: 'console' });
    },
  );

  app.get('/keys/:id', async (request): Promise<KeyView> => {
    const { id } = parseInput(idParams, request.params);
    return guard(() => deps.keys.get(id));
  });

  app.patch('/keys/:id', { config: { consoleAction: 'key.update' } }, async (request): Promise<KeyView> => {
    const { id } = parseInput(idParams, request.params);
    return update(request, id, { via: 'console' });
  });

  const rotate = async (request: FastifyRequest, id: number, via: Via): Promise<IssuedKey> => {
    await loadKey(request, id);
    const issued = await guard(() => deps.keys.rotate(id));
    if (via.via !== 'console') request.adminAudit = { ...request.adminAudit, detail: via };
    return { ...issued, key: await deps.keys.get(id) };
  };

  const revoke = async (request: FastifyRequest, id: number, via: Via): Promise<KeyView> => {
    await loadKey(request, id);
    const revoked = await guard(() => deps.keys.revoke(id));
    if (via.via !== 'console') request.adminAudit = { ...request.adminAudit, detail: via };
    return revoked;
  };

  app.post('/keys/:id/rotate', { config: { consoleAction: 'key.rotate' } }, async (request): Promise<IssuedKey> => {
    const { id } = parseInput(idParams, request.params);
    return rotate(request, id, { via: 'console' });
  });

  app.post('/keys/:id/revoke', { config: { consoleAction: 'key.revoke' } }, async (request): Promise<KeyView> => {
    const { id } = parseInput(idParams, request.params);
    return revoke(request, id, { via: 'console' });
  });

  // Automation twins (issue 31: every surface), for an operator token allowed on the key's clinic.
  app.get('/automation/tenants/:slug/keys', { config: { operatorToken: true } }, async (request, reply) => {
    const { slug } = parseInput(slugParams, request.params);
    await tokenOnClinic(deps, request, slug);
    return list(request, reply, slug);
  });

  app.post(
    '/automation/tenants/:slug/keys',
    { config: { operatorToken: true, consoleAction: 'key.create' } },
    async (request, reply): Promise<IssuedKey> => {
      const { slug } = parseInput(slugParams, request.params);
      const { via } = await tokenOnClinic(deps, request, slug);
      return issue(request, reply, slug, via);
    },
  );

  /**
   * The token's clinics first: a key of another clinic and a key that does not exist both answer 403, so a token
   * learns nothing of other clinics' keys (a token for every clinic gets the 404).
   */
  const tokenOnKeysClinic = async (request: FastifyRequest, id: number) => {
    const found = await deps.keys.get(id).catch(() => null);
    const slug = found ? ((await deps.tenants.list()).find((t) => t.id === found.tenant_id)?.slug ?? '') : '';
    return (await tokenOnClinic(deps, request, slug)).via;
  };

  app.patch(
    '/automation/keys/:id',
    { config: { operatorToken: true, consoleAction: 'key.update' } },
    async (request): Promise<KeyView> => {
      const { id } = parseInput(idParams, request.params);
      return update(request, id, await tokenOnKeysClinic(request, id));
    },
  );

  app.post(
    '/automation/keys/:id/rotate',
    { config: { operatorToken: true, consoleAction: 'key.rotate' } },
    async (request): Promise<IssuedKey> => {
      const { id } = parseInput(idParams, request.params);
      return rotate(request, id, await tokenOnKeysClinic(request, id));
    },
  );

  app.post(
    '/automation/keys/:id/revoke',
    { config: { operatorToken: true, consoleAction: 'key.revoke' } },
    async (request): Promise<KeyView> => {
      const { id } = parseInput(idParams, request.params);
      return revoke(request, id, await tokenOnKeysClinic(request, id));
    },
  );
}
