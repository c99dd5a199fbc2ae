import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { actionSubjectId, parseInput } from '../http.ts';
import {
  createOperator,
  findOperator,
  listOperators,
  resetOperatorPassword,
  updateOperator,
} from '../../operators/operators.service.ts';
import {
  createOperatorSchema,
  updateOperatorSchema,
  type OperatorRefusal,
  type OperatorView,
  type OperatorWithPassword,
} from '../../../contracts/admin/operators.ts';

/**
 * Operator accounts (issue 22 § 6), admins only (`role: 'admin'`, the reads included: the list of accounts
 * is an admin's business). A viewer sees its own account through `GET /auth/session` and changes its
 * password with `POST /auth/password`. Generated passwords are in the answer of create and reset only
 * (`Cache-Control: no-store`); the journal keeps who did what to which account, never a password.
 */
export default async function operatorRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  // Sessions live on real time, operator tokens on the appliance clock: each expiry is judged by its own.
  const at = () => ({
    now: new Date(deps.now()).toISOString(),
    applianceNow: new Date(deps.clock.now()).toISOString(),
  });

  /** Your own account is changed by another admin: nobody locks themselves out or resets without the current password. */
  const notSelf = (request: FastifyRequest, id: number, what: string) => {
    if (request.adminSession!.operatorId !== id) return;
    const motivo: OperatorRefusal = 'self';
    throw new ApiError('INVALID_STATE', `Voce nao pode ${what} a propria conta: peca a outro admin.`, { motivo });
  };

  app.get(
    '/operators',
    { config: { role: 'admin' } },
    async (): Promise<OperatorView[]> => listOperators(deps.db, at()),
  );

  app.post(
    '/operators',
    { config: { role: 'admin', consoleAction: 'operator.create' } },
    async (request, reply): Promise<OperatorWithPassword> => {
      const input = parseInput(createOperatorSchema, request.body);
      request.adminAudit = { detail: { username: input.username, role: input.role } };
      const created = await createOperator(deps.db, input, at());
      request.adminAudit = { detail: { operator_id: created.operator.id, username: input.username, role: input.role } };
      reply.header('cache-control', 'no-store');
      reply.status(201);
      return created;
    },
  );

  app.patch(
    '/operators/:id',
    { config: { role: 'admin', consoleAction: 'operator.update' } },
    async (request): Promise<OperatorView> => {
      const id = actionSubjectId(request, 'operator_id');
      const input = parseInput(updateOperatorSchema, request.body);
      const target = await findOperator(deps.db, { id });
      request.adminAudit = { detail: { operator_id: id, username: target.username } };
      notSelf(request, id, input.disabled ? 'desativar' : 'alterar o papel de');
      const updated = await updateOperator(deps.db, id, input, at());
      request.adminAudit = {
        detail: {
          operator_id: id,
          username: target.username,
          antes: updated.before,
          depois: { role: updated.operator.role, disabled: updated.operator.status === 'disabled' },
          sessions_ended: updated.sessionsEnded,
          tokens_revoked: updated.tokensRevoked,
        },
      };
      return updated.operator;
    },
  );

  app.post(
    '/operators/:id/reset-password',
    { config: { role: 'admin', consoleAction: 'operator.password.reset' } },
    async (request, reply): Promise<OperatorWithPassword> => {
      const id = actionSubjectId(request, 'operator_id');
      const target = await findOperator(deps.db, { id });
      request.adminAudit = { detail: { operator_id: id, username: target.username } };
      notSelf(request, id, 'redefinir a senha de');
      const reset = await resetOperatorPassword(deps.db, id, at());
      request.adminAudit = {
        detail: { operator_id: id, username: target.username, sessions_ended: reset.sessionsEnded },
      };
      reply.header('cache-control', 'no-store');
      return { operator: reset.operator, password: reset.password };
    },
  );
}
