import type { BackendRoutes } from '../deps.ts';
import { createMedico, patchMedico } from '../domain/medicos/medicos.service.ts';
import { createFromBody, writeByIdFromBody } from '../lib/http.ts';
import { medicoWriteForwarded } from '../../contracts/backend/medicos.ts';

/** Doctor writes; the list and the detail are catalogs (routes/catalogos.ts). */
export const medicoRoutes: BackendRoutes = (deps) => async (app) => {
  app.post('/medicos', createFromBody(medicoWriteForwarded, createMedico, deps.now));
  app.patch('/medicos/:id', writeByIdFromBody(medicoWriteForwarded, patchMedico, deps.now));
};
