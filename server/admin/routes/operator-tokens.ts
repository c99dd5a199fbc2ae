import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { AdminDeps } from '../deps.ts';
import { issuedTokenDetail, OperatorTokenStore } from '../../operators/operator-tokens.ts';
import { actionSubjectId, parseInput } from '../http.ts';
import {
  issueOperatorTokenSchema,
  type IssuedOperatorToken,
  type operatorTokenRemoved,
  type OperatorTokenView,
} from '../../../contracts/admin/operator-tokens.ts';

/**
 * Operator API tokens (issue 13): issued, listed and revoked by a signed-in operator. Each is bound to
 * named clinics or, asked for explicitly, to all (`"*"`), and expires (issue 19); times follow the
 * appliance clock.
 */
export default async function operatorTokenRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const tokens = new OperatorTokenStore(deps.db, () => deps.clock.now());

  app.get('/operator-tokens', async (): Promise<OperatorTokenView[]> => tokens.list());

  // The token is in this answer and nowhere else, ever (the audit keeps the request body: label, clinics, validity).
  app.post(
    '/operator-tokens',
    { config: { consoleAction: 'operator_token.create' } },
    async (request, reply): Promise<IssuedOperatorToken> => {
      const input = parseInput(issueOperatorTokenSchema, request.body);
      const { token, view } = await tokens.create({
        operatorId: request.adminSession!.operatorId,
        label: input.label,
        tenants: input.tenants,
        expiresInDays: input.expires_in_days,
        clone: input.clone,
      });
      request.adminAudit = {
        detail: issuedTokenDetail(view),
      };
      reply.header('cache-control', 'no-store');
      reply.status(201);
      return { token, ...view };
    },
  );

  app.post(
    '/operator-tokens/:id/revoke',
    { config: { consoleAction: 'operator_token.revoke' } },
    async (request): Promise<OperatorTokenView> => {
      const id = actionSubjectId(request, 'token_id');
      return tokens.revoke(id);
    },
  );

  // Only a revoked or expired token: the list stays short; what it did stays in the journal.
  app.delete(
    '/operator-tokens/:id',
    { config: { consoleAction: 'operator_token.delete' } },
    async (request): Promise<z.infer<typeof operatorTokenRemoved>> => {
      const id = actionSubjectId(request, 'token_id');
      return tokens.remove(id);
    },
  );
}
