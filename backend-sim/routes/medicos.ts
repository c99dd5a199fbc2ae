import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../deps.ts';
import { medicoWriteSchema } from '../domain/medicos/medicos.schemas.ts';
import { createMedico, patchMedico } from '../domain/medicos/medicos.service.ts';
import { callContext, createdRoute, idOf, itemRoute, parse } from '../lib/http.ts';

/** Doctor writes; the list and the detail are catalogs (routes/catalogos.ts). */
export const medicoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.post(
      '/medicos',
      createdRoute((req) =>
        createMedico(req.tenant.db, parse(medicoWriteSchema, req.body), callContext(req), deps.now()),
      ),
    );
    app.patch(
      '/medicos/:id',
      itemRoute((req) =>
        patchMedico(req.tenant.db, idOf(req), parse(medicoWriteSchema, req.body), callContext(req), deps.now()),
      ),
    );
  };
