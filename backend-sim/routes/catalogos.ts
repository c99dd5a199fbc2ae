import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { cidsQuery, conveniosQuery, procedimentosQuery, simpleCatalogQuery } from '../domain/catalogos/catalogos.schemas.ts';
import { listCids, listComplementos, listConvenios, listGruposLaudos, listProcedimentos, listUnidades } from '../domain/catalogos/catalogos.service.ts';
import { medicosQuery } from '../domain/medicos/medicos.schemas.ts';
import { getMedico, listMedicos } from '../domain/medicos/medicos.service.ts';
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
      return { data: await getMedico(req.tenant.db, id), meta: {} };
    });
    app.get('/cids', async (req) => send(await listCids(req.tenant.db, parse(cidsQuery, req.query))));
    app.get('/unidades', async (req) => send(await listUnidades(req.tenant.db, parse(simpleCatalogQuery, req.query))));
    app.get('/complementos', async (req) => send(await listComplementos(req.tenant.db, parse(simpleCatalogQuery, req.query))));
    app.get('/grupos-laudos', async (req) => send(await listGruposLaudos(req.tenant.db, parse(simpleCatalogQuery, req.query))));
  };
