import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { parse } from '../lib/http.ts';
import { isoSeconds } from '../lib/time.ts';

/** Ten years, the gateway's own bound (server/clock.ts MAX_CLOCK_OFFSET_MS). */
const MAX_OFFSET_MS = 3650 * 86_400_000;

/**
 * How far ahead of its base clock backend-sim runs. The gateway sets it (`PUT /admin/clock`) when
 * backend-sim is another process (`npm start`'s child, or BACKEND_URL's) and an operator moved the appliance
 * clock in development mode; started in the gateway's process (tests), backend-sim reads the gateway's clock
 * directly (BackendConfig.now) and this stays 0. Kept in memory: a restarted backend-sim is told again by the gateway.
 */
export class ClockOffset {
  ms = 0;

  apply(date: Date): Date {
    return this.ms === 0 ? date : new Date(date.getTime() + this.ms);
  }
}

const offsetInput = z.object({ offset_ms: z.number().int().min(0).max(MAX_OFFSET_MS) }).strict();

export const clockRoutes =
  (offset: ClockOffset, clock: () => Date): FastifyPluginAsync =>
  async (app) => {
    const view = () => ({ data: { offset_ms: offset.ms, agora: isoSeconds(clock()) }, meta: {} });
    app.get('/admin/clock', async () => view());
    app.put('/admin/clock', async (req) => {
      offset.ms = parse(offsetInput, req.body).offset_ms;
      return view();
    });
  };
