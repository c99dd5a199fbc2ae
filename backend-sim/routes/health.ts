import type { BackendRoutes } from '../deps.ts';
import { BACKEND_HEALTH_PATH, type BackendHealth } from '../../contracts/backend/health.ts';

/**
 * `GET /health`: the gateway's readiness probe (`/readyz`). Behind the internal token like every
 * route, never faulted (no tenant in the path), and cheap: it opens no tenant database.
 */
export const healthRoutes: BackendRoutes = (deps) => async (app) => {
  app.get(
    BACKEND_HEALTH_PATH,
    async (): Promise<{ data: BackendHealth; meta: object }> => ({
      data: { status: 'ok', time: deps.now() },
      meta: {},
    }),
  );
};
