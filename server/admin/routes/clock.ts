import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AdminDeps } from '../admin-plugin.ts';
import { ApiError, invalidParam } from '../../errors.ts';
import { parseInput } from '../http.ts';
import { ClockDisabledError, ClockError, MAX_CLOCK_OFFSET_MS, type ApplianceClock, type ClockState } from '../../clock.ts';

const MAX_SECONDS = MAX_CLOCK_OFFSET_MS / 1000;

/** Exactly one of: move ahead of where the clock is now, or set the offset from real time. */
export const clockChangeSchema = z
  .object({
    advance_seconds: z.number().int().min(1, 'Avance ao menos 1 segundo.').max(MAX_SECONDS).optional(),
    offset_seconds: z.number().int().min(0, 'O relogio so avanca: offset 0 ou maior.').max(MAX_SECONDS).optional(),
  })
  .strict()
  .refine((input) => (input.advance_seconds === undefined) !== (input.offset_seconds === undefined), {
    message: 'Informe advance_seconds ou offset_seconds (um dos dois).',
  });
export type ClockChange = z.infer<typeof clockChangeSchema>;

/** The clock is only controlled in development mode; production answers 403 and keeps real time. */
async function change(clock: ApplianceClock, work: () => Promise<ClockState>): Promise<ClockState> {
  if (!clock.enabled) throw new ApiError('OPERATION_NOT_ALLOWED', 'Controle do relogio disponivel apenas com APP_ENV=development.');
  try {
    return await work();
  } catch (error) {
    if (error instanceof ClockDisabledError) throw new ApiError('OPERATION_NOT_ALLOWED', error.message);
    if (error instanceof ClockError) throw invalidParam('offset_seconds', error.message);
    throw error;
  }
}

/**
 * The appliance clock (server/clock.ts): read it anywhere, move it ahead or back to real time in
 * development mode. Audited as console actions `clock.set` and `clock.reset`.
 */
export default async function clockRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/clock', async () => deps.clock.state());

  app.put('/clock', { config: { consoleAction: 'clock.set' } }, async (request) => {
    const before = deps.clock.offsetMs();
    const state = await change(deps.clock, async () => {
      const input = parseInput(clockChangeSchema, request.body);
      return input.advance_seconds !== undefined ? deps.clock.advance(input.advance_seconds * 1000) : deps.clock.set(input.offset_seconds! * 1000);
    });
    request.adminAudit = { detail: { offset_before_seconds: Math.floor(before / 1000), offset_seconds: state.offset_seconds } };
    return state;
  });

  app.delete('/clock', { config: { consoleAction: 'clock.reset' } }, async (request) => {
    const before = deps.clock.offsetMs();
    const state = await change(deps.clock, () => deps.clock.reset());
    request.adminAudit = { detail: { offset_before_seconds: Math.floor(before / 1000), offset_seconds: 0 } };
    return state;
  });
}
