import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BackendClient } from '../../backend/client.ts';
import { addMeta } from '../../http/envelope.ts';
import { emptyQuery, paginationMeta } from '../../http/params.ts';
import { backendContext, tenantPath } from '../backend-context.ts';
import {
  pacienteCreateBody,
  pacienteDetailRead,
  pacienteDetailWrite,
  pacienteIdParams,
  pacienteListItem,
  pacientePatchBody,
  pacientesListQuery,
  unificarBody,
  unificarResult,
} from './schemas/pacientes.ts';

type Detail = z.infer<typeof pacienteDetailWrite>;

/** Patients: no doctor filter; reads need `pacientes:read`, writes `pacientes:write` and an Idempotency-Key. */
export default (async (app, options) => {
  const { backend } = options;

  app.get(
    '/pacientes',
    { schema: { querystring: pacientesListQuery, response: { 200: z.array(pacienteListItem) } }, config: { scope: 'pacientes:read' } },
    async (request, reply) => {
      const q = request.query;
      const result = await backend.call<z.infer<typeof pacienteListItem>[]>({
        method: 'GET',
        path: tenantPath(request, '/pacientes'),
        query: {
          cpf: q.cpf,
          nome: q.nome,
          periodo_cadastro_inicio: q.periodo_cadastro_inicio,
          periodo_cadastro_fim: q.periodo_cadastro_fim,
          ativo: q.ativo === undefined ? undefined : q.ativo ? '1' : '0',
          limit: q.limit,
          offset: q.offset,
        },
        context: backendContext(request),
      });
      addMeta(reply, paginationMeta(q.limit, q.offset, Number(result.meta.total ?? 0)));
      return result.data;
    },
  );

  app.get(
    '/pacientes/:id',
    {
      schema: { params: pacienteIdParams, querystring: emptyQuery, response: { 200: pacienteDetailRead } },
      config: { scope: 'pacientes:read' },
    },
    async (request) => {
      const result = await backend.call<z.infer<typeof pacienteDetailRead>>({
        method: 'GET',
        path: tenantPath(request, `/pacientes/${request.params.id}`),
        context: backendContext(request),
      });
      return result.data;
    },
  );

  app.post(
    '/pacientes',
    {
      schema: { querystring: emptyQuery, body: pacienteCreateBody, response: { 201: pacienteDetailWrite } },
      config: { scope: 'pacientes:write', idempotent: true },
    },
    async (request, reply) => {
      const result = await backend.call<Detail>({
        method: 'POST',
        path: tenantPath(request, '/pacientes'),
        body: request.body,
        context: backendContext(request),
      });
      reply.status(201).header('location', `/v1/pacientes/${result.data.id}`);
      return result.data;
    },
  );

  app.patch(
    '/pacientes/:id',
    {
      schema: { params: pacienteIdParams, querystring: emptyQuery, body: pacientePatchBody, response: { 200: pacienteDetailWrite } },
      config: { scope: 'pacientes:write', idempotent: true },
    },
    async (request) => {
      const result = await backend.call<Detail>({
        method: 'PATCH',
        path: tenantPath(request, `/pacientes/${request.params.id}`),
        body: request.body,
        context: backendContext(request),
      });
      return result.data;
    },
  );

  app.post(
    '/pacientes/unificar',
    {
      schema: { querystring: emptyQuery, body: unificarBody, response: { 200: unificarResult } },
      config: { scope: 'pacientes:write', idempotent: true },
    },
    async (request) => {
      const result = await backend.call<z.infer<typeof unificarResult>>({
        method: 'POST',
        path: tenantPath(request, '/pacientes/unificar'),
        body: request.body,
        context: backendContext(request),
      });
      return result.data;
    },
  );
}) satisfies FastifyPluginAsyncZod<{ backend: BackendClient }>;
