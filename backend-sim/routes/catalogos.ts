import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { cidsQuery, conveniosQuery, procedimentosQuery, simpleCatalogQuery } from '../domain/catalogos/catalogos.schemas.ts';
import { listCids, listComplementos, listConvenios, listGruposLaudos, listProcedimentos, listUnidades } from '../domain/catalogos/catalogos.service.ts';
import { medicosQuery } from '../domain/medicos/medicos.schemas.ts';
import { getMedico, listMedicos } from '../domain/medicos/medicos.service.ts';
import { idOf, itemRoute, listRoute } from '../lib/http.ts';

export const catalogoRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/procedimentos', listRoute(procedimentosQuery, (req, f) => listProcedimentos(req.tenant.db, f)));
    app.get('/convenios', listRoute(conveniosQuery, (req, f) => listConvenios(req.tenant.db, f)));
    app.get('/medicos', listRoute(medicosQuery, (req, f) => listMedicos(req.tenant.db, f)));
    app.get('/medicos/:id', itemRoute((req) => getMedico(req.tenant.db, idOf(req))));
    app.get('/cids', listRoute(cidsQuery, (req, f) => listCids(req.tenant.db, f)));
    app.get('/unidades', listRoute(simpleCatalogQuery, (req, f) => listUnidades(req.tenant.db, f)));
    app.get('/complementos', listRoute(simpleCatalogQuery, (req, f) => listComplementos(req.tenant.db, f)));
    app.get('/grupos-laudos', listRoute(simpleCatalogQuery, (req, f) => listGruposLaudos(req.tenant.db, f)));
  };
