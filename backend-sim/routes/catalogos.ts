import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import {
  listCids,
  listComplementos,
  listConvenios,
  listGruposLaudos,
  listProcedimentos,
  listUnidades,
} from '../domain/catalogos/catalogos.service.ts';
import { getMedico, listMedicos } from '../domain/medicos/medicos.service.ts';
import { idOf, itemRoute, listRoute } from '../lib/http.ts';
import {
  cidsForwarded,
  conveniosForwarded,
  procedimentosForwarded,
  wholeCatalogForwarded,
} from '../../contracts/backend/catalogos.ts';
import { medicoListForwarded } from '../../contracts/backend/medicos.ts';
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
      listRoute(procedimentosForwarded, (req, f) => listProcedimentos(req.tenant.db, f), procedimentoItem),
    );
    app.get(
      '/convenios',
      listRoute(conveniosForwarded, (req, f) => listConvenios(req.tenant.db, f), convenioItem),
    );
    app.get(
      '/medicos',
      listRoute(medicoListForwarded, (req, f) => listMedicos(req.tenant.db, f), medicoListItem),
    );
    app.get(
      '/medicos/:id',
      itemRoute((req) => getMedico(req.tenant.db, idOf(req)), medicoDetail),
    );
    app.get(
      '/cids',
      listRoute(cidsForwarded, (req, f) => listCids(req.tenant.db, f), cidItem),
    );
    app.get(
      '/unidades',
      listRoute(wholeCatalogForwarded, (req, f) => listUnidades(req.tenant.db, f), unidadeItem),
    );
    app.get(
      '/complementos',
      listRoute(wholeCatalogForwarded, (req, f) => listComplementos(req.tenant.db, f), complementoItem),
    );
    app.get(
      '/grupos-laudos',
      listRoute(wholeCatalogForwarded, (req, f) => listGruposLaudos(req.tenant.db, f), grupoLaudoItem),
    );
  };
