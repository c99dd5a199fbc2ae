import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { createMedico, patchMedico } from '../domain/medicos/medicos.service.ts';
import { medicoWriteForwarded } from '../../contracts/backend/medicos.ts';
import { callContext, createdRoute, idOf, itemRoute, parse } from '../lib/http.ts';

/** Doctor writes; the list and the detail are catalogs (routes/catalogos.ts). */
export const medicoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.post(
      '/medicos',
      createdRoute((req) =>
        createMedico(req.tenant.db, parse(medicoWriteForwarded, req.body), callContext(req), deps.now()),
      ),
    );
    app.patch(
      '/medicos/:id',
      itemRoute((req) =>
        patchMedico(req.tenant.db, idOf(req), parse(medicoWriteForwarded, req.body), callContext(req), deps.now()),
      ),
    );
  };
