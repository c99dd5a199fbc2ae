import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import {
  apptCreateSchema,
  apptListSchema,
  cancelSchema,
  configListSchema,
  reagendarSchema,
  slotsSchema,
} from '../domain/agenda/agenda.schemas.ts';
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

export const agendaRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/agenda/configs', visibleListRoute(configListSchema, listConfigs, agendaConfig));
    app.get(
      '/agenda/slots',
      listRoute(slotsSchema, (req, f) => computeSlots(req.tenant.db, f, callContext(req), deps.clock()), slotGroup),
    );
    app.get('/agenda/agendamentos', visibleListRoute(apptListSchema, listAgendamentos, agendamento));
    app.get('/agenda/agendamentos/:id', visibleByIdRoute(getAgendamento, agendamentoDetail));
    app.post('/agenda/agendamentos', createFromBody(apptCreateSchema, createAgendamento, deps.stamp));
    app.post(
      '/agenda/agendamentos/:id/cancelar',
      itemRoute((req) =>
        cancelAgendamento(req.tenant.db, idOf(req), parse(cancelSchema, req.body).motivo, callContext(req), deps.now()),
      ),
    );
    app.post(
      '/agenda/agendamentos/:id/reagendar',
      writeByIdFromBody(reagendarSchema, reagendarAgendamento, deps.stamp),
    );
  };
