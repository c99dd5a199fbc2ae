import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BackendDeps } from '../deps.ts';
import { exameCreateSchema, exameDeleteSchema, exameListSchema } from '../domain/exames/exames.schemas.ts';
import { createExame, deleteExame, getExame, listExames, locateExameArquivo } from '../domain/exames/exames.service.ts';
import {
  convenioQuery,
  medicoQuery,
  pacienteQuery,
  procedimentoQuery,
  unidadeQuery,
} from '../domain/resolucao/resolucao.schemas.ts';
import {
  convenios,
  medicosPorCrm,
  pacientesPorCpf,
  procedimentos,
  unidadesPorNome,
} from '../domain/resolucao/resolucao.service.ts';
import { callContext, createdRoute, idOf, itemRoute, listRoute, parse } from '../lib/http.ts';
import { exameDetail, exameListItem } from '../../contracts/schemas/exames.ts';

const arquivoQuery = z.object({ tipo: z.enum(['exame', 'laudo']) });

export const exameRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/exames',
      listRoute(exameListSchema, (req, f) => listExames(req.tenant.db, f, callContext(req)), exameListItem),
    );
    app.get(
      '/exames/:id',
      itemRoute((req) => getExame(req.tenant.db, idOf(req), callContext(req)), exameDetail),
    );
    app.get(
      '/exames/:id/arquivo',
      itemRoute((req) =>
        locateExameArquivo(req.tenant.db, deps.files, idOf(req), parse(arquivoQuery, req.query).tipo, callContext(req)),
      ),
    );
    app.post(
      '/exames',
      createdRoute((req) =>
        createExame(
          req.tenant.db,
          deps.files,
          req.tenantSlug,
          parse(exameCreateSchema, req.body),
          callContext(req),
          deps.stamp(),
        ),
      ),
    );
    app.delete(
      '/exames/:id',
      itemRoute((req) =>
        deleteExame(req.tenant.db, idOf(req), parse(exameDeleteSchema, req.body).motivo, callContext(req), deps.now()),
      ),
    );

    // Exact-match lookups for the aliases of exam create; no doctor filter (catalog data).
    app.get(
      '/resolucao/pacientes',
      listRoute(pacienteQuery, (req, q) => pacientesPorCpf(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/procedimentos',
      listRoute(procedimentoQuery, (req, q) => procedimentos(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/convenios',
      listRoute(convenioQuery, (req, q) => convenios(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/medicos',
      listRoute(medicoQuery, (req, q) => medicosPorCrm(req.tenant.db, q)),
    );
    app.get(
      '/resolucao/unidades',
      listRoute(unidadeQuery, (req, q) => unidadesPorNome(req.tenant.db, q)),
    );
  };
