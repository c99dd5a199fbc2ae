import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';

export const agendaRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async () => {};
