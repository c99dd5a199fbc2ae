import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../deps.ts';
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
import { callContext, createdRoute, idOf, itemRoute, listRoute, parse } from '../lib/http.ts';
import { pacienteDetailRead, pacienteListItem } from '../../contracts/schemas/pacientes.ts';

export const pacienteRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/pacientes',
      listRoute(pacienteListSchema, (req, f) => listPacientes(req.tenant.db, f), pacienteListItem),
    );
    app.get(
      '/pacientes/:id',
      itemRoute((req) => getPaciente(req.tenant.db, idOf(req)), pacienteDetailRead),
    );
    app.post(
      '/pacientes',
      createdRoute((req) =>
        createPaciente(req.tenant.db, parse(pacienteCreateSchema, req.body), callContext(req), deps.now()),
      ),
    );
    app.patch(
      '/pacientes/:id',
      itemRoute((req) =>
        patchPaciente(req.tenant.db, idOf(req), parse(pacientePatchSchema, req.body), callContext(req), deps.now()),
      ),
    );
    app.post(
      '/pacientes/unificar',
      itemRoute((req) => {
        const input = parse(unificarSchema, req.body);
        return unificarPacientes(req.tenant.db, input.paciente_id_principal, input.paciente_id_duplicado);
      }),
    );
  };
