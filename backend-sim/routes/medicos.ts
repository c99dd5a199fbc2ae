import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { medicoWriteSchema } from '../domain/medicos/medicos.schemas.ts';
import { createMedico, patchMedico } from '../domain/medicos/medicos.service.ts';
import { createFromBody, writeByIdFromBody } from '../lib/http.ts';

/** Doctor writes; the list and the detail are catalogs (routes/catalogos.ts). */
export const medicoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.post('/medicos', createFromBody(medicoWriteSchema, createMedico, deps.now));
    app.patch('/medicos/:id', writeByIdFromBody(medicoWriteSchema, patchMedico, deps.now));
  };
