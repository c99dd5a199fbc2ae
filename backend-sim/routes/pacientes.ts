import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { pacienteCreateSchema, pacienteListSchema, pacientePatchSchema, unificarSchema } from '../domain/pacientes/pacientes.schemas.ts';
import { createPaciente, getPaciente, listPacientes, patchPaciente, unificarPacientes } from '../domain/pacientes/pacientes.service.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const pacienteRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/pacientes', async (req) => {
      const { data, total } = await listPacientes(req.tenant.db, parse(pacienteListSchema, req.query));
      return { data, meta: { total } };
    });

    app.get('/pacientes/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await getPaciente(req.tenant.db, id), meta: {} };
    });

    app.post('/pacientes', async (req, reply) => {
      const data = await createPaciente(req.tenant.db, parse(pacienteCreateSchema, req.body), callContext(req), deps.now());
      return reply.status(201).send({ data, meta: {} });
    });

    app.patch('/pacientes/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await patchPaciente(req.tenant.db, id, parse(pacientePatchSchema, req.body), callContext(req), deps.now()), meta: {} };
    });

    app.post('/pacientes/unificar', async (req) => {
      const input = parse(unificarSchema, req.body);
      return { data: await unificarPacientes(req.tenant.db, input.paciente_id_principal, input.paciente_id_duplicado), meta: {} };
    });
  };
