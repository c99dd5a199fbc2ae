import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BackendDeps } from '../app.ts';
import {
  createExame,
  deleteExame,
  exameCreated,
  exameCreateSchema,
  exameDeleteSchema,
  exameDetail,
  exameListSchema,
  findVisibleExame,
  listExames,
  locateExameArquivo,
} from '../domain/exames.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const exameRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/exames', async (req) => {
      const { data, total } = await listExames(req.tenant.db, parse(exameListSchema, req.query), callContext(req));
      return { data, meta: { total } };
    });
    app.get('/exames/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: exameDetail(await findVisibleExame(req.tenant.db, id, callContext(req))), meta: {} };
    });
    app.get('/exames/:id/arquivo', async (req) => {
      const { id } = parse(idParam, req.params);
      const { tipo } = parse(z.object({ tipo: z.enum(['exame', 'laudo']) }), req.query);
      return { data: await locateExameArquivo(req.tenant.db, deps.files, id, tipo, callContext(req)), meta: {} };
    });
    app.post('/exames', async (req, reply) => {
      const row = await createExame(req.tenant.db, deps.files, req.tenantSlug, parse(exameCreateSchema, req.body), callContext(req), deps.stamp());
      return reply.status(201).send({ data: exameCreated(row), meta: {} });
    });
    app.delete('/exames/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      const { motivo } = parse(exameDeleteSchema, req.body);
      return { data: await deleteExame(req.tenant.db, id, motivo, callContext(req), deps.now()), meta: {} };
    });
  };
