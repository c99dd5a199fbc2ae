import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { medicoWriteSchema } from '../domain/medicos/medicos.schemas.ts';
import { createMedico, patchMedico } from '../domain/medicos/medicos.service.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const medicoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.post('/medicos', async (req, reply) => {
      const data = await createMedico(req.tenant.db, parse(medicoWriteSchema, req.body), callContext(req), deps.now());
      return reply.status(201).send({ data, meta: {} });
    });
    app.patch('/medicos/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await patchMedico(req.tenant.db, id, parse(medicoWriteSchema, req.body), callContext(req), deps.now()), meta: {} };
    });
  };
