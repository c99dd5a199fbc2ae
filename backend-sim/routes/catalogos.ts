import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
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
import { byIdRoute, catalogRoute } from '../lib/http.ts';
import * as catalogo from '../../contracts/schemas/catalogos.ts';
import { medicoDetail, medicoListItem } from '../../contracts/schemas/medicos.ts';

export const catalogoRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/procedimentos', catalogRoute(procedimentosQuery, listProcedimentos, catalogo.procedimentoItem));
    app.get('/convenios', catalogRoute(conveniosQuery, listConvenios, catalogo.convenioItem));
    app.get('/medicos', catalogRoute(medicosQuery, listMedicos, medicoListItem));
    app.get('/medicos/:id', byIdRoute(getMedico, medicoDetail));
    app.get('/cids', catalogRoute(cidsQuery, listCids, catalogo.cidItem));
    app.get('/unidades', catalogRoute(simpleCatalogQuery, listUnidades, catalogo.unidadeItem));
    app.get('/complementos', catalogRoute(simpleCatalogQuery, listComplementos, catalogo.complementoItem));
    app.get('/grupos-laudos', catalogRoute(simpleCatalogQuery, listGruposLaudos, catalogo.grupoLaudoItem));
  };
