import { z } from 'zod';
import type { BackendRoutes } from '../deps.ts';
import {
  createProntuario,
  listAnexos,
  listProntuarios,
  locateAnexo,
} from '../domain/prontuarios/prontuarios.service.ts';
import { callContext, createdRoute, idOf, itemRoute, listOfItemRoute, parse } from '../lib/http.ts';
import {
  anexoPageForwarded,
  prontuarioCreateForwarded,
  prontuarioPageForwarded,
} from '../../contracts/backend/prontuarios.ts';
import { anexoMeta, prontuario } from '../../contracts/schemas/prontuarios.ts';

const anexoParams = z.object({ id: z.coerce.number().int().positive(), anexoId: z.coerce.number().int().positive() });

export const prontuarioRoutes: BackendRoutes = (deps) => async (app) => {
  app.post(
    '/pacientes/:id/prontuarios',
    createdRoute((req) =>
      createProntuario(
        req.tenant.db,
        deps.files,
        req.tenantSlug,
        idOf(req),
        parse(prontuarioCreateForwarded, req.body),
        callContext(req),
        deps.now(),
      ),
    ),
  );
  app.get(
    '/pacientes/:id/prontuarios',
    listOfItemRoute(prontuarioPageForwarded, (req, id, page) => listProntuarios(req.tenant.db, id, page), prontuario),
  );
  app.get(
    '/pacientes/:id/prontuarios/anexos',
    listOfItemRoute(anexoPageForwarded, (req, id, page) => listAnexos(req.tenant.db, id, page), anexoMeta),
  );
  app.get(
    '/pacientes/:id/prontuarios/anexos/:anexoId/url',
    itemRoute((req) => {
      const { id, anexoId } = parse(anexoParams, req.params);
      return locateAnexo(req.tenant.db, deps.files, id, anexoId);
    }),
  );
};
