import type { FastifyRequest } from 'fastify';
import type { ApplianceClock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { ActiveOperatorToken, OperatorTokenStore } from '../operators/operator-tokens.ts';

const authenticated = new WeakMap<FastifyRequest, ActiveOperatorToken>();

/** onRequest step of an automation route: the token becomes the request's principal (audited as its operator). */
export async function authenticateOperatorToken(request: FastifyRequest, store: OperatorTokenStore): Promise<void> {
  // Expiry is judged by the appliance clock (the gateway's decoration), like every time rule; real time without one.
  const clock = request.server.applianceClock as ApplianceClock | undefined;
  const token = await store.authenticate(request.headers.authorization, clock?.now());
  authenticated.set(request, token);
  request.adminAuditOperatorId = token.operatorId;
}

/** The operator token an automation request was authenticated with. */
export function operatorTokenOf(request: FastifyRequest): ActiveOperatorToken {
  const token = authenticated.get(request);
  if (!token) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Token de operador ausente.');
  return token;
}
