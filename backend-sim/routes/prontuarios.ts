import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BackendDeps } from '../app.ts';
import { anexoPageSchema, prontuarioCreateSchema } from '../domain/prontuarios/prontuarios.schemas.ts';
import { createProntuario, listAnexos, listProntuarios, locateAnexo } from '../domain/prontuarios/prontuarios.service.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam, pageSchema } from '../lib/schemas.ts';

const anexoParams = z.object({ id: z.coerce.number().int().positive(), anexoId: z.coerce.number().int().positive() });

export const prontuarioRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.post('/pacientes/:id/prontuarios', async (req, reply) => {
      const { id } = parse(idParam, req.params);
      const data = await createProntuario(req.tenant.db, deps.files, req.tenantSlug, id, parse(prontuarioCreateSchema, req.body), callContext(req), deps.now());
      return reply.status(201).send({ data, meta: {} });
    });
    app.get('/pacientes/:id/prontuarios', async (req) => {
      const { id } = parse(idParam, req.params);
      const { data, total } = await listProntuarios(req.tenant.db, id, parse(pageSchema, req.query));
      return { data, meta: { total } };
    });
    app.get('/pacientes/:id/prontuarios/anexos', async (req) => {
      const { id } = parse(idParam, req.params);
      const { data, total } = await listAnexos(req.tenant.db, id, parse(anexoPageSchema, req.query));
      return { data, meta: { total } };
    });
    app.get('/pacientes/:id/prontuarios/anexos/:anexoId/url', async (req) => {
      const { id, anexoId } = parse(anexoParams, req.params);
      return { data: await locateAnexo(req.tenant.db, deps.files, id, anexoId), meta: {} };
    });
  };
