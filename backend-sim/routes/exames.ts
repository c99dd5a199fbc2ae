import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { BackendDeps } from '../app.ts';
import { exameCreateSchema, exameDeleteSchema, exameListSchema } from '../domain/exames/exames.schemas.ts';
import { createExame, deleteExame, getExame, listExames, locateExameArquivo } from '../domain/exames/exames.service.ts';
import { convenioQuery, medicoQuery, pacienteQuery, procedimentoQuery, unidadeQuery } from '../domain/resolucao/resolucao.schemas.ts';
import { convenios, medicosPorCrm, pacientesPorCpf, procedimentos, unidadesPorNome, type Matches } from '../domain/resolucao/resolucao.service.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

const matches = ({ data, total }: Matches) => ({ data, meta: { total } });

export const exameRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/exames', async (req) => {
      const { data, total } = await listExames(req.tenant.db, parse(exameListSchema, req.query), callContext(req));
      return { data, meta: { total } };
    });
    app.get('/exames/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await getExame(req.tenant.db, id, callContext(req)), meta: {} };
    });
    app.get('/exames/:id/arquivo', async (req) => {
      const { id } = parse(idParam, req.params);
      const { tipo } = parse(z.object({ tipo: z.enum(['exame', 'laudo']) }), req.query);
      return { data: await locateExameArquivo(req.tenant.db, deps.files, id, tipo, callContext(req)), meta: {} };
    });
    app.post('/exames', async (req, reply) => {
      const data = await createExame(req.tenant.db, deps.files, req.tenantSlug, parse(exameCreateSchema, req.body), callContext(req), deps.stamp());
      return reply.status(201).send({ data, meta: {} });
    });
    app.delete('/exames/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      const { motivo } = parse(exameDeleteSchema, req.body);
      return { data: await deleteExame(req.tenant.db, id, motivo, callContext(req), deps.now()), meta: {} };
    });

    // Exact-match lookups for the aliases of exam create; no doctor filter (catalog data).
    app.get('/resolucao/pacientes', async (req) => matches(await pacientesPorCpf(req.tenant.db, parse(pacienteQuery, req.query))));
    app.get('/resolucao/procedimentos', async (req) => matches(await procedimentos(req.tenant.db, parse(procedimentoQuery, req.query))));
    app.get('/resolucao/convenios', async (req) => matches(await convenios(req.tenant.db, parse(convenioQuery, req.query))));
    app.get('/resolucao/medicos', async (req) => matches(await medicosPorCrm(req.tenant.db, parse(medicoQuery, req.query))));
    app.get('/resolucao/unidades', async (req) => matches(await unidadesPorNome(req.tenant.db, parse(unidadeQuery, req.query))));
  };
