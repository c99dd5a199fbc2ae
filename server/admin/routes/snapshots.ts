import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import { ApiError, notFound } from '../../errors.ts';
import { operatorTokenOf } from '../operator-token-auth.ts';
import { requireTokenTenant, tokenAllows } from '../../operators/operator-tokens.ts';
import { slugParams } from '../../../contracts/admin/common.ts';
import {
  SNAPSHOT_IMPORT_MAX_BYTES,
  snapshotImportQuery,
  snapshotParams,
  snapshotRestoreSchema,
  snapshotSaveSchema,
} from '../../../contracts/admin/snapshots.ts';
import {
  archiveTooLarge,
  deleteSnapshot,
  exportSnapshot,
  importSnapshot,
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
} from '../../tenants/snapshots.ts';
import { TENANT_RESET_OPT_IN } from '../../tenants/tenant-reset.ts';
import { tenantResetPolicy } from './tenants.ts';

/**
 * Named snapshots of a clinic (issue 30 § 2): the console routes (session + CSRF; admin writes, viewers list)
 * and their automation twins under `/automation/…` (operator token bound to the clinic), same bodies and
 * answers, each journaled as a console action `tenant.snapshot.<save|restore|delete|export|import>` under the
 * clinic, refusals included. Restore and import follow the reset's production rule (403 OPERATION_NOT_ALLOWED
 * unless ALLOW_TENANT_RESET=true); save, list, delete and export are allowed everywhere (docs/decisions.md S3).
 */
export default async function snapshotRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  // The archive streams through to backend-sim: no parser buffers it (the import caps it while it streams).
  app.addContentTypeParser(['application/octet-stream', 'application/x-tar'], (_request, payload, done) =>
    done(null, payload),
  );
  // The stream leaves `request.body` at once: the journal entry records the body, and an archive is not one to record.
  const archives = new WeakMap<FastifyRequest, Readable>();
  app.addHook('preValidation', async (request) => {
    const body = request.body as Readable | undefined;
    if (body && typeof body.pipe === 'function') {
      archives.set(request, body);
      request.body = { archive: `${request.headers['content-length'] ?? 'unknown'} bytes` };
    }
  });
  const policy = tenantResetPolicy(deps);
  const services = { db: deps.db, backend: deps.backend, tenants: deps.tenants };

  for (const surface of [
    { prefix: '', token: false },
    { prefix: '/automation', token: true },
  ]) {
    const route = (action: string, extra: Record<string, unknown> = {}) => ({
      config: {
        consoleAction: `tenant.snapshot.${action}`,
        ...(surface.token ? { operatorToken: true } : {}),
        ...extra,
      },
    });

    /** Names the clinic in the journal entry first, then (a token) checks the token is bound to it. */
    const subject = async (request: FastifyRequest, slug: string, detail: Record<string, unknown> = {}) => {
      const token = surface.token ? operatorTokenOf(request) : null;
      const via = token ? { via: 'operator_token', token_id: token.id } : { via: 'console' };
      const tenant = await deps.tenants.get(slug);
      request.adminAudit = {
        tenantId: tenant?.id ?? null,
        tenantSlug: tenant?.slug ?? null,
        detail: { ...via, slug, ...detail },
      };
      if (token && !tokenAllows(token, slug)) {
        request.adminAudit.detail = { ...request.adminAudit.detail, token_tenants: token.tenants };
        requireTokenTenant(token, slug);
      }
      return tenant;
    };
    const record = (request: FastifyRequest, result: object) => {
      if (request.adminAudit) request.adminAudit.detail = { ...request.adminAudit.detail, ...result };
    };
    const refuseInProduction = (what: string) => {
      if (!policy.allowed)
        throw new ApiError(
          'OPERATION_NOT_ALLOWED',
          `${what} desativado com APP_ENV=production: defina ${TENANT_RESET_OPT_IN}=true para permiti-lo.`,
          { opt_in_variable: TENANT_RESET_OPT_IN },
        );
    };
    const base = `${surface.prefix}/tenants/:slug/snapshots`;

    app.get(base, { config: surface.token ? { operatorToken: true } : {} }, async (request) => {
      const { slug } = parseInput(slugParams, request.params);
      if (surface.token) await subject(request, slug);
      if (!(await deps.tenants.get(slug))) throw notFound();
      return guard(() => listSnapshots(services, slug));
    });

    app.post(base, route('save'), async (request, reply) => {
      const { slug } = parseInput(slugParams, request.params);
      const tenant = await subject(request, slug);
      const input = parseInput(snapshotSaveSchema, request.body);
      record(request, { name: input.name, replace: Boolean(input.replace) });
      if (!tenant) throw notFound();
      const saved = await guard(() => saveSnapshot(services, slug, input));
      record(request, saved);
      reply.status(201);
      return saved;
    });

    app.post(`${base}/:name/restore`, route('restore'), async (request) => {
      const { slug, name } = parseInput(snapshotParams, request.params);
      const tenant = await subject(request, slug, { name });
      refuseInProduction('Restaurar snapshot');
      parseInput(snapshotRestoreSchema, request.body ?? {});
      if (!tenant) throw notFound();
      const restored = await guard(() => restoreSnapshot(services, slug, name));
      record(request, { ...restored, journal_kept: true });
      return restored;
    });

    app.delete(`${base}/:name`, route('delete'), async (request) => {
      const { slug, name } = parseInput(snapshotParams, request.params);
      const tenant = await subject(request, slug, { name });
      if (!tenant) throw notFound();
      return guard(() => deleteSnapshot(services, slug, name));
    });

    // A whole clinic's data: an admin's action even though it is a GET.
    app.get(`${base}/:name/export`, route('export', { role: 'admin' }), async (request, reply) => {
      const { slug, name } = parseInput(snapshotParams, request.params);
      const tenant = await subject(request, slug, { name });
      if (!tenant) throw notFound();
      const { filename, body } = await guard(() => exportSnapshot(services, slug, name));
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(body);
    });

    app.post(`${base}/import`, route('import'), async (request, reply) => {
      const { slug } = parseInput(slugParams, request.params);
      const query = parseInput(snapshotImportQuery, request.query);
      await subject(request, slug, { name: query.name ?? null });
      refuseInProduction('Importar snapshot');
      const length = Number(request.headers['content-length'] ?? 0);
      if (length > SNAPSHOT_IMPORT_MAX_BYTES) throw archiveTooLarge();
      const body = archives.get(request);
      if (!body)
        throw new ApiError('VAL_INVALID_PARAM', 'Envie o arquivo do snapshot como corpo application/octet-stream.', {
          field: 'archive',
        });
      const imported = await guard(() => importSnapshot(services, { slug, name: query.name, body }));
      const tenant = await deps.tenants.get(slug);
      if (request.adminAudit) {
        request.adminAudit.tenantId = tenant?.id ?? null;
        request.adminAudit.tenantSlug = tenant?.slug ?? null;
      }
      record(request, imported);
      reply.status(201);
      return imported;
    });
  }
}
