import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';

export const laudoRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async () => {};
