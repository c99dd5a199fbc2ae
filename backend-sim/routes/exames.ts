import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { createExame, deleteExame, getExame, listExames, locateExameArquivo } from '../domain/exames/exames.service.ts';
import {
  convenios,
  medicosPorCrm,
  pacientesPorCpf,
  procedimentos,
  unidadesPorNome,
} from '../domain/resolucao/resolucao.service.ts';
import { callContext, createdRoute, idOf, itemRoute, listRoute, parse } from '../lib/http.ts';
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
import { exameDetail, exameListItem } from '../../contracts/schemas/exames.ts';

export const exameRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/exames',
      listRoute(exameListForwarded, (req, f) => listExames(req.tenant.db, f, callContext(req)), exameListItem),
    );
    app.get(
      '/exames/:id',
      itemRoute((req) => getExame(req.tenant.db, idOf(req), callContext(req)), exameDetail),
    );
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
        deleteExame(
          req.tenant.db,
          idOf(req),
          parse(exameDeleteForwarded, req.body).motivo,
          callContext(req),
          deps.now(),
        ),
      ),
    );

    // Exact-match lookups for the aliases of exam create; no doctor filter (catalog data).
    app.get(
      '/resolucao/pacientes',
      listRoute(resolucaoPacienteQuery, (req, q) => pacientesPorCpf(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/procedimentos',
      listRoute(resolucaoProcedimentoQuery, (req, q) => procedimentos(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/convenios',
      listRoute(resolucaoConvenioQuery, (req, q) => convenios(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/medicos',
      listRoute(resolucaoMedicoQuery, (req, q) => medicosPorCrm(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/unidades',
      listRoute(resolucaoUnidadeQuery, (req, q) => unidadesPorNome(req.tenant.db, q)),
    );
  };
