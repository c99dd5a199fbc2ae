import type { BackendRoutes } from '../deps.ts';
import {
  listCids,
  listComplementos,
  listConvenios,
  listGruposLaudos,
  listProcedimentos,
  listUnidades,
} from '../domain/catalogos/catalogos.service.ts';
import { getMedico, listMedicos } from '../domain/medicos/medicos.service.ts';
import { byIdRoute, catalogRoute } from '../lib/http.ts';
import * as catalogo from '../../contracts/schemas/catalogos.ts';
import { medicoDetail, medicoListItem } from '../../contracts/schemas/medicos.ts';
import {
  cidsForwarded,
  conveniosForwarded,
  procedimentosForwarded,
  wholeCatalogForwarded,
} from '../../contracts/backend/catalogos.ts';
import { medicoListForwarded } from '../../contracts/backend/medicos.ts';

export const catalogoRoutes: BackendRoutes = () => async (app) => {
  app.get('/procedimentos', catalogRoute(procedimentosForwarded, listProcedimentos, catalogo.procedimentoItem));
  app.get('/convenios', catalogRoute(conveniosForwarded, listConvenios, catalogo.convenioItem));
  app.get('/medicos', catalogRoute(medicoListForwarded, listMedicos, medicoListItem));
  app.get('/medicos/:id', byIdRoute(getMedico, medicoDetail));
  app.get('/cids', catalogRoute(cidsForwarded, listCids, catalogo.cidItem));
  app.get('/unidades', catalogRoute(wholeCatalogForwarded, listUnidades, catalogo.unidadeItem));
  app.get('/complementos', catalogRoute(wholeCatalogForwarded, listComplementos, catalogo.complementoItem));
  app.get('/grupos-laudos', catalogRoute(wholeCatalogForwarded, listGruposLaudos, catalogo.grupoLaudoItem));
};
