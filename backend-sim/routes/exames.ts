import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';

export const exameRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async () => {};
