import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import {
  pacienteCreateSchema,
  pacienteListSchema,
  pacientePatchSchema,
  unificarSchema,
} from '../domain/pacientes/pacientes.schemas.ts';
import {
  createPaciente,
  getPaciente,
  listPacientes,
  patchPaciente,
  unificarPacientes,
} from '../domain/pacientes/pacientes.service.ts';
import { byIdRoute, catalogRoute, createFromBody, itemRoute, parse, writeByIdFromBody } from '../lib/http.ts';
import { pacienteDetailRead, pacienteListItem } from '../../contracts/schemas/pacientes.ts';

export const pacienteRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/pacientes', catalogRoute(pacienteListSchema, listPacientes, pacienteListItem));
    app.get('/pacientes/:id', byIdRoute(getPaciente, pacienteDetailRead));
    app.post('/pacientes', createFromBody(pacienteCreateSchema, createPaciente, deps.now));
    app.patch('/pacientes/:id', writeByIdFromBody(pacientePatchSchema, patchPaciente, deps.now));
    app.post(
      '/pacientes/unificar',
      itemRoute((req) => {
        const input = parse(unificarSchema, req.body);
        return unificarPacientes(req.tenant.db, input.paciente_id_principal, input.paciente_id_duplicado);
      }),
    );
  };
