import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import {
  createPaciente,
  findPaciente,
  listPacientes,
  pacienteCreateSchema,
  pacienteListSchema,
  pacientePatchSchema,
  patchPaciente,
  toDetail,
  toListItem,
  unificarPacientes,
  unificarSchema,
} from '../domain/pacientes.ts';
import { notFound } from '../errors.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const pacienteRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/pacientes', async (req) => {
      const { rows, total } = await listPacientes(req.tenant.db, parse(pacienteListSchema, req.query));
      return { data: rows.map(toListItem), meta: { total } };
    });

    app.get('/pacientes/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      const p = await findPaciente(req.tenant.db, id);
      if (!p) throw notFound();
      return { data: await toDetail(req.tenant.db, p, 'read'), meta: {} };
    });

    app.post('/pacientes', async (req, reply) => {
      const data = await createPaciente(req.tenant.db, parse(pacienteCreateSchema, req.body), callContext(req), deps.now());
      return reply.status(201).send({ data, meta: {} });
    });

    app.patch('/pacientes/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      const p = await patchPaciente(req.tenant.db, id, parse(pacientePatchSchema, req.body), callContext(req), deps.now());
      return { data: await toDetail(req.tenant.db, p, 'write'), meta: {} };
    });

    app.post('/pacientes/unificar', async (req) => {
      const input = parse(unificarSchema, req.body);
      return { data: await unificarPacientes(req.tenant.db, input.paciente_id_principal, input.paciente_id_duplicado), meta: {} };
    });
  };
