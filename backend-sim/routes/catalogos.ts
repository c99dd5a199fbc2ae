import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import {
  cidsQuery,
  conveniosQuery,
  listCids,
  listComplementos,
  listConvenios,
  listGruposLaudos,
  listProcedimentos,
  listUnidades,
  procedimentosQuery,
  simpleCatalogQuery,
} from '../domain/catalogos.ts';
import { findMedico, listMedicos, medicoDetail, medicosQuery } from '../domain/medicos.ts';
import { notFound } from '../errors.ts';
import { parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const catalogoRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    const send = ({ data, total }: { data: unknown[]; total: number }) => ({ data, meta: { total } });
    app.get('/procedimentos', async (req) => send(await listProcedimentos(req.tenant.db, parse(procedimentosQuery, req.query))));
    app.get('/convenios', async (req) => send(await listConvenios(req.tenant.db, parse(conveniosQuery, req.query))));
    app.get('/medicos', async (req) => send(await listMedicos(req.tenant.db, parse(medicosQuery, req.query))));
    app.get('/medicos/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      const m = await findMedico(req.tenant.db, id);
      if (!m) throw notFound();
      return { data: await medicoDetail(req.tenant.db, m), meta: {} };
    });
    app.get('/cids', async (req) => send(await listCids(req.tenant.db, parse(cidsQuery, req.query))));
    app.get('/unidades', async (req) => send(await listUnidades(req.tenant.db, parse(simpleCatalogQuery, req.query))));
    app.get('/complementos', async (req) => send(await listComplementos(req.tenant.db, parse(simpleCatalogQuery, req.query))));
    app.get('/grupos-laudos', async (req) => send(await listGruposLaudos(req.tenant.db, parse(simpleCatalogQuery, req.query))));
  };
