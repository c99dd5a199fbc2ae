import type { BackendRoutes } from '../deps.ts';
import {
  createPaciente,
  getPaciente,
  listPacientes,
  patchPaciente,
  unificarPacientes,
} from '../domain/pacientes/pacientes.service.ts';
import { byIdRoute, catalogRoute, createFromBody, itemRoute, parse, writeByIdFromBody } from '../lib/http.ts';
import { pacienteDetailRead, pacienteListItem } from '../../contracts/schemas/pacientes.ts';
import {
  pacienteCreateForwarded,
  pacienteListForwarded,
  pacientePatchForwarded,
  unificarForwarded,
} from '../../contracts/backend/pacientes.ts';

export const pacienteRoutes: BackendRoutes = (deps) => async (app) => {
  app.get('/pacientes', catalogRoute(pacienteListForwarded, listPacientes, pacienteListItem));
  app.get('/pacientes/:id', byIdRoute(getPaciente, pacienteDetailRead));
  app.post('/pacientes', createFromBody(pacienteCreateForwarded, createPaciente, deps.now));
  app.patch('/pacientes/:id', writeByIdFromBody(pacientePatchForwarded, patchPaciente, deps.now));
  app.post(
    '/pacientes/unificar',
    itemRoute((req) => {
      const input = parse(unificarForwarded, req.body);
      return unificarPacientes(req.tenant.db, input.paciente_id_principal, input.paciente_id_duplicado);
    }),
  );
};
