import { z } from 'zod';

/**
 * gateway → backend-sim: `GET /health`, the gateway's readiness probe (server/http/health-plugin.ts). Behind the
 * internal token like every call; backend-sim answers it without opening a tenant database.
 */
export const BACKEND_HEALTH_PATH = '/health';

export const backendHealth = z.object({ status: z.literal('ok'), time: z.string() });
export type BackendHealth = z.infer<typeof backendHealth>;

/** The whole answer: backend-sim's envelope around `backendHealth`. */
export const backendHealthAnswer = z.object({ data: backendHealth });
