import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../deps.ts';
import {
  cidsQuery,
  conveniosQuery,
  procedimentosQuery,
  simpleCatalogQuery,
} from '../domain/catalogos/catalogos.schemas.ts';
import {
  listCids,
  listComplementos,
  listConvenios,
  listGruposLaudos,
  listProcedimentos,
  listUnidades,
} from '../domain/catalogos/catalogos.service.ts';
import { medicosQuery } from '../domain/medicos/medicos.schemas.ts';
import { getMedico, listMedicos } from '../domain/medicos/medicos.service.ts';
import { idOf, itemRoute, listRoute } from '../lib/http.ts';
import {
  cidItem,
  complementoItem,
  convenioItem,
  grupoLaudoItem,
  procedimentoItem,
  unidadeItem,
} from '../../contracts/schemas/catalogos.ts';
import { medicoDetail, medicoListItem } from '../../contracts/schemas/medicos.ts';

export const catalogoRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/procedimentos',
      listRoute(procedimentosQuery, (req, f) => listProcedimentos(req.tenant.db, f), procedimentoItem),
    );
    app.get(
      '/convenios',
      listRoute(conveniosQuery, (req, f) => listConvenios(req.tenant.db, f), convenioItem),
    );
    app.get(
      '/medicos',
      listRoute(medicosQuery, (req, f) => listMedicos(req.tenant.db, f), medicoListItem),
    );
    app.get(
      '/medicos/:id',
      itemRoute((req) => getMedico(req.tenant.db, idOf(req)), medicoDetail),
    );
    app.get(
      '/cids',
      listRoute(cidsQuery, (req, f) => listCids(req.tenant.db, f), cidItem),
    );
    app.get(
      '/unidades',
      listRoute(simpleCatalogQuery, (req, f) => listUnidades(req.tenant.db, f), unidadeItem),
    );
    app.get(
      '/complementos',
      listRoute(simpleCatalogQuery, (req, f) => listComplementos(req.tenant.db, f), complementoItem),
    );
    app.get(
      '/grupos-laudos',
      listRoute(simpleCatalogQuery, (req, f) => listGruposLaudos(req.tenant.db, f), grupoLaudoItem),
    );
  };
