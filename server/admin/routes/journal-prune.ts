import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminDeps } from '../deps.ts';
import { ApiError } from '../../errors.ts';
import { parseInput } from '../http.ts';
import { operatorTokenOf } from '../operator-token-auth.ts';
import { requireTokenTenant } from '../../operators/operator-tokens.ts';
import { ALL_TENANTS } from '../../../contracts/admin/operator-tokens.ts';
import {
  JOURNAL_PRUNE_ACTION,
  journalPruneSchema,
  type JournalPruneResult,
} from '../../../contracts/admin/journal-prune.ts';
import type { JournalPruner } from '../../audit/journal-prune.ts';

/** A prune's body is three short fields. */
const PRUNE_BODY_LIMIT = 1024;

/** The refusal of every surface with APP_ENV=production (the CLI says the same). */
export const JOURNAL_PRUNE_PRODUCTION_REFUSAL =
  'Prune do journal desativado com APP_ENV=production: o journal e mantido os 30 dias da especificacao.';

/**
 * A prune from the console or the automation route (docs/decisions.md § P): development mode only (403
 * OPERATION_NOT_ALLOWED otherwise, journaled), then the entries older than `before` removed (or counted, with
 * `dry_run`). Journaled as `journal.prune` under the clinic when one is named, with what it removed; that entry,
 * like every earlier prune's, is never pruned.
 */
export async function pruneRoute(
  deps: Pick<AdminDeps, 'clock' | 'tenants'>,
  pruner: JournalPruner,
  request: FastifyRequest,
  via: Record<string, unknown>,
  authorize: (tenant: string | null) => void = () => undefined,
): Promise<JournalPruneResult> {
  request.adminAudit = { detail: { ...via } };
  if (!deps.clock.enabled) throw new ApiError('OPERATION_NOT_ALLOWED', JOURNAL_PRUNE_PRODUCTION_REFUSAL);
  const input = parseInput(journalPruneSchema, request.body);
  const before = new Date(input.before).toISOString();
  const tenant = input.tenant ?? null;
  const known = tenant === null ? undefined : await deps.tenants.get(tenant);
  request.adminAudit = {
    tenantId: known?.id ?? null,
    tenantSlug: tenant,
    detail: { ...via, before, tenant, dry_run: input.dry_run },
  };
  authorize(tenant);
  const filter = { before, tenant };
  const counted = input.dry_run ? await pruner.count(filter) : await pruner.prune(filter);
  const result: JournalPruneResult = {
    removed: counted.entries + counted.groups,
    entries: counted.entries,
    unattributed_groups: counted.groups,
    before,
    tenant,
    dry_run: input.dry_run,
  };
  request.adminAudit.detail = { ...request.adminAudit.detail, ...result };
  return result;
}

/** `POST /journal/prune` (session, admin, CSRF) and its automation twin (operator token bound to the clinic, or to all for every clinic). */
export default async function journalPruneRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.post(
    '/journal/prune',
    { bodyLimit: PRUNE_BODY_LIMIT, config: { consoleAction: JOURNAL_PRUNE_ACTION } },
    (request) => pruneRoute(deps, deps.journalPrune, request, {}),
  );
  app.post(
    '/automation/journal/prune',
    { bodyLimit: PRUNE_BODY_LIMIT, config: { operatorToken: true, consoleAction: JOURNAL_PRUNE_ACTION } },
    (request) => {
      const token = operatorTokenOf(request);
      return pruneRoute(deps, deps.journalPrune, request, { via: 'operator_token', token_id: token.id }, (tenant) => {
        // Every clinic's journal only with a token for every clinic.
        if (tenant === null && token.tenants !== ALL_TENANTS)
          throw new ApiError('ADMIN_FORBIDDEN', 'Este token nao vale para todas as clinicas: indique tenant.', {
            token_tenants: token.tenants,
          });
        if (tenant !== null) requireTokenTenant(token, tenant);
      });
    },
  );
}
