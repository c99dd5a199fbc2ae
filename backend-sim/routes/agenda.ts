import type { BackendRoutes } from '../deps.ts';
import {
  cancelAgendamento,
  computeSlots,
  createAgendamento,
  getAgendamento,
  listAgendamentos,
  listConfigs,
  reagendarAgendamento,
} from '../domain/agenda/agenda.service.ts';
import {
  callContext,
  createFromBody,
  idOf,
  itemRoute,
  listRoute,
  parse,
  visibleByIdRoute,
  visibleListRoute,
  writeByIdFromBody,
} from '../lib/http.ts';
import { agendaConfig, agendamento, agendamentoDetail, slotGroup } from '../../contracts/schemas/agenda.ts';
import {
  apptCreateForwarded,
  apptListForwarded,
  cancelForwarded,
  configListForwarded,
  reagendarForwarded,
  slotsForwarded,
} from '../../contracts/backend/agenda.ts';

export const agendaRoutes: BackendRoutes = (deps) => async (app) => {
  app.get('/agenda/configs', visibleListRoute(configListForwarded, listConfigs, agendaConfig));
  app.get(
    '/agenda/slots',
    listRoute(slotsForwarded, (req, f) => computeSlots(req.tenant.db, f, callContext(req), deps.clock()), slotGroup),
  );
  app.get('/agenda/agendamentos', visibleListRoute(apptListForwarded, listAgendamentos, agendamento));
  app.get('/agenda/agendamentos/:id', visibleByIdRoute(getAgendamento, agendamentoDetail));
  app.post('/agenda/agendamentos', createFromBody(apptCreateForwarded, createAgendamento, deps.stamp));
  app.post(
    '/agenda/agendamentos/:id/cancelar',
    itemRoute((req) =>
      cancelAgendamento(
        req.tenant.db,
        idOf(req),
        parse(cancelForwarded, req.body).motivo,
        callContext(req),
        deps.now(),
      ),
    ),
  );
  app.post(
    '/agenda/agendamentos/:id/reagendar',
    writeByIdFromBody(reagendarForwarded, reagendarAgendamento, deps.stamp),
  );
};
