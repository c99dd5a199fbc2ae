import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { laudoIngestSchema, laudoListSchema } from '../domain/laudos/laudos.schemas.ts';
import { getLaudo, ingestLaudo, listLaudos, locateLaudoArquivo } from '../domain/laudos/laudos.service.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const laudoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/laudos', async (req) => {
      const { data, total } = await listLaudos(req.tenant.db, parse(laudoListSchema, req.query), callContext(req));
      return { data, meta: { total } };
    });
    app.get('/laudos/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await getLaudo(req.tenant.db, id, callContext(req)), meta: {} };
    });
    app.get('/laudos/:id/arquivo', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await locateLaudoArquivo(req.tenant.db, deps.files, id, callContext(req)), meta: {} };
    });
    app.post('/exames/:id/laudo', async (req, reply) => {
      const { id } = parse(idParam, req.params);
      const data = await ingestLaudo(req.tenant.db, deps.files, req.tenantSlug, id, parse(laudoIngestSchema, req.body), callContext(req), deps.stamp());
      return reply.status(201).send({ data, meta: {} });
    });
  };
