import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from '../deps.ts';
import { ApiError, invalidParam } from '../../errors.ts';
import { parseInput } from '../http.ts';
import { ClockDisabledError, ClockError, type ApplianceClock } from '../../clock.ts';
import { clockChangeSchema, type ClockState } from '../../../contracts/admin/clock.ts';

/** The clock is only controlled in development mode; production answers 403 and keeps real time. */
async function change(clock: ApplianceClock, work: () => Promise<ClockState>): Promise<ClockState> {
  if (!clock.enabled)
    throw new ApiError('OPERATION_NOT_ALLOWED', 'Controle do relogio disponivel apenas com APP_ENV=development.');
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
  app.get('/clock', async (): Promise<ClockState> => deps.clock.state());

  app.put('/clock', { config: { consoleAction: 'clock.set' } }, async (request): Promise<ClockState> => {
    const before = deps.clock.offsetMs();
    const state = await change(deps.clock, async () => {
      const input = parseInput(clockChangeSchema, request.body);
      return input.advance_seconds !== undefined
        ? deps.clock.advance(input.advance_seconds * 1000)
        : deps.clock.set(input.offset_seconds! * 1000);
    });
    request.adminAudit = {
      detail: { offset_before_seconds: Math.floor(before / 1000), offset_seconds: state.offset_seconds },
    };
    return state;
  });

  app.delete('/clock', { config: { consoleAction: 'clock.reset' } }, async (request): Promise<ClockState> => {
    const before = deps.clock.offsetMs();
    const state = await change(deps.clock, () => deps.clock.reset());
    request.adminAudit = { detail: { offset_before_seconds: Math.floor(before / 1000), offset_seconds: 0 } };
    return state;
  });
}
