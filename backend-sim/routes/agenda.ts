import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';
import { apptCreateSchema, apptListSchema, cancelSchema, configListSchema, reagendarSchema, slotsSchema } from '../domain/agenda/agenda.schemas.ts';
import {
  cancelAgendamento,
  computeSlots,
  createAgendamento,
  getAgendamento,
  listAgendamentos,
  listConfigs,
  reagendarAgendamento,
} from '../domain/agenda/agenda.service.ts';
import { callContext, parse } from '../lib/http.ts';
import { idParam } from '../lib/schemas.ts';

export const agendaRoutes =
  (deps: BackendDeps): FastifyPluginAsync =>
  async (app) => {
    app.get('/agenda/configs', async (req) => {
      const { data, total } = await listConfigs(req.tenant.db, parse(configListSchema, req.query), callContext(req));
      return { data, meta: { total } };
    });
    app.get('/agenda/slots', async (req) => {
      const { data, total } = await computeSlots(req.tenant.db, parse(slotsSchema, req.query), callContext(req), deps.clock());
      return { data, meta: { total } };
    });
    app.get('/agenda/agendamentos', async (req) => {
      const { data, total } = await listAgendamentos(req.tenant.db, parse(apptListSchema, req.query), callContext(req));
      return { data, meta: { total } };
    });
    app.get('/agenda/agendamentos/:id', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await getAgendamento(req.tenant.db, id, callContext(req)), meta: {} };
    });
    app.post('/agenda/agendamentos', async (req, reply) => {
      const data = await createAgendamento(req.tenant.db, parse(apptCreateSchema, req.body), callContext(req), deps.stamp());
      return reply.status(201).send({ data, meta: {} });
    });
    app.post('/agenda/agendamentos/:id/cancelar', async (req) => {
      const { id } = parse(idParam, req.params);
      const { motivo } = parse(cancelSchema, req.body);
      return { data: await cancelAgendamento(req.tenant.db, id, motivo, callContext(req), deps.now()), meta: {} };
    });
    app.post('/agenda/agendamentos/:id/reagendar', async (req) => {
      const { id } = parse(idParam, req.params);
      return { data: await reagendarAgendamento(req.tenant.db, id, parse(reagendarSchema, req.body), callContext(req), deps.stamp()), meta: {} };
    });
  };
