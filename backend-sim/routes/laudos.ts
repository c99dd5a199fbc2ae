import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../deps.ts';
import { laudoIngestSchema, laudoListSchema } from '../domain/laudos/laudos.schemas.ts';
import { getLaudo, ingestLaudo, listLaudos, locateLaudoArquivo } from '../domain/laudos/laudos.service.ts';
import { callContext, createdRoute, idOf, itemRoute, listRoute, parse } from '../lib/http.ts';
import { laudoDetail, laudoItem } from '../../contracts/schemas/laudos.ts';

export const laudoRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/laudos',
      listRoute(laudoListSchema, (req, f) => listLaudos(req.tenant.db, f, callContext(req)), laudoItem),
    );
    app.get(
      '/laudos/:id',
      itemRoute((req) => getLaudo(req.tenant.db, idOf(req), callContext(req)), laudoDetail),
    );
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
          parse(laudoIngestSchema, req.body),
          callContext(req),
          deps.stamp(),
        ),
      ),
    );
  };
