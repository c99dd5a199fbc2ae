import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { createMedico, medicoDetail, medicoWriteSchema, patchMedico } from '../domain/medicos.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const medicoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.post('/medicos', async (req, reply) => {
      const m = await createMedico(req.tenant.db, parse(medicoWriteSchema, req.body), callContext(req), deps.now());
      return reply.status(201).send({ data: await medicoDetail(req.tenant.db, m), meta: {} });
    });
    app.patch('/medicos/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      const m = await patchMedico(req.tenant.db, id, parse(medicoWriteSchema, req.body), callContext(req), deps.now());
      return { data: await medicoDetail(req.tenant.db, m), meta: {} };
    });
  };
