import type { BackendRoutes } from '../deps.ts';
import { createExame, deleteExame, getExame, listExames, locateExameArquivo } from '../domain/exames/exames.service.ts';
import {
  convenios,
  medicosPorCrm,
  pacientesPorCpf,
  procedimentos,
  unidadesPorNome,
} from '../domain/resolucao/resolucao.service.ts';
import {
  callContext,
  catalogRoute,
  createdRoute,
  idOf,
  itemRoute,
  parse,
  visibleByIdRoute,
  visibleListRoute,
} from '../lib/http.ts';
import { exameDetail, exameListItem } from '../../contracts/schemas/exames.ts';
import {
  exameArquivoForwarded,
  exameCreateResolved,
  exameDeleteForwarded,
  exameListForwarded,
  resolucaoConvenioQuery,
  resolucaoMedicoQuery,
  resolucaoPacienteQuery,
  resolucaoProcedimentoQuery,
  resolucaoUnidadeQuery,
} from '../../contracts/backend/exames.ts';

export const exameRoutes: BackendRoutes = (deps) => async (app) => {
  app.get('/exames', visibleListRoute(exameListForwarded, listExames, exameListItem));
  app.get('/exames/:id', visibleByIdRoute(getExame, exameDetail));
  app.get(
    '/exames/:id/arquivo',
    itemRoute((req) =>
      locateExameArquivo(
        req.tenant.db,
        deps.files,
        idOf(req),
        parse(exameArquivoForwarded, req.query).tipo,
        callContext(req),
      ),
    ),
  );
  app.post(
    '/exames',
    createdRoute((req) =>
      createExame(
        req.tenant.db,
        deps.files,
        req.tenantSlug,
        parse(exameCreateResolved, req.body),
        callContext(req),
        deps.stamp(),
      ),
    ),
  );
  app.delete(
    '/exames/:id',
    itemRoute((req) =>
      deleteExame(req.tenant.db, idOf(req), parse(exameDeleteForwarded, req.body).motivo, callContext(req), deps.now()),
    ),
  );

  // Exact-match lookups for the aliases of exam create; no doctor filter (catalog data).
  app.get('/resolucao/pacientes', catalogRoute(resolucaoPacienteQuery, pacientesPorCpf));
  app.get('/resolucao/procedimentos', catalogRoute(resolucaoProcedimentoQuery, procedimentos));
  app.get('/resolucao/convenios', catalogRoute(resolucaoConvenioQuery, convenios));
  app.get('/resolucao/medicos', catalogRoute(resolucaoMedicoQuery, medicosPorCrm));
  app.get('/resolucao/unidades', catalogRoute(resolucaoUnidadeQuery, unidadesPorNome));
};
