import type { BackendRoutes } from '../deps.ts';
import { getLaudo, ingestLaudo, listLaudos, locateLaudoArquivo } from '../domain/laudos/laudos.service.ts';
import { callContext, createdRoute, idOf, itemRoute, parse, visibleByIdRoute, visibleListRoute } from '../lib/http.ts';
import { laudoDetail, laudoItem } from '../../contracts/schemas/laudos.ts';
import { laudoIngestForwarded, laudoListForwarded } from '../../contracts/backend/laudos.ts';

export const laudoRoutes: BackendRoutes = (deps) => async (app) => {
  app.get('/laudos', visibleListRoute(laudoListForwarded, listLaudos, laudoItem));
  app.get('/laudos/:id', visibleByIdRoute(getLaudo, laudoDetail));
  app.get(
    '/laudos/:id/arquivo',
    itemRoute((req) => locateLaudoArquivo(req.tenant.db, deps.files, idOf(req), callContext(req))),
  );
  app.post(
    '/exames/:id/laudo',
    createdRoute((req) =>
      ingestLaudo(
        req.tenant.db,
        deps.files,
        req.tenantSlug,
        idOf(req),
        parse(laudoIngestForwarded, req.body),
        callContext(req),
        deps.stamp(),
      ),
    ),
  );
};
