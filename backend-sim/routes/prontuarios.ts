import type { FastifyPluginAsync } from 'fastify';
import type { BackendDeps } from '../app.ts';

export const prontuarioRoutes =
  (_deps: BackendDeps): FastifyPluginAsync =>
  async () => {};
