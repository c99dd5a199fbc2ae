import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../deps.ts';
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
import { callContext, createdRoute, idOf, itemRoute, listRoute, parse } from '../lib/http.ts';
import { agendaConfig, agendamento, agendamentoDetail, slotGroup } from '../../contracts/schemas/agenda.ts';

export const agendaRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/agenda/configs',
      listRoute(configListSchema, (req, f) => listConfigs(req.tenant.db, f, callContext(req)), agendaConfig),
    );
    app.get(
      '/agenda/slots',
      listRoute(slotsSchema, (req, f) => computeSlots(req.tenant.db, f, callContext(req), deps.clock()), slotGroup),
    );
    app.get(
      '/agenda/agendamentos',
      listRoute(apptListSchema, (req, f) => listAgendamentos(req.tenant.db, f, callContext(req)), agendamento),
    );
    app.get(
      '/agenda/agendamentos/:id',
      itemRoute((req) => getAgendamento(req.tenant.db, idOf(req), callContext(req)), agendamentoDetail),
    );
    app.post(
      '/agenda/agendamentos',
      createdRoute((req) =>
        createAgendamento(req.tenant.db, parse(apptCreateSchema, req.body), callContext(req), deps.stamp()),
      ),
    );
    app.post(
      '/agenda/agendamentos/:id/cancelar',
      itemRoute((req) =>
        cancelAgendamento(req.tenant.db, idOf(req), parse(cancelSchema, req.body).motivo, callContext(req), deps.now()),
      ),
    );
    app.post(
      '/agenda/agendamentos/:id/reagendar',
      itemRoute((req) =>
        reagendarAgendamento(
          req.tenant.db,
          idOf(req),
          parse(reagendarSchema, req.body),
          callContext(req),
          deps.stamp(),
        ),
      ),
    );
  };
