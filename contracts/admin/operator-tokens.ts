import { z } from 'zod';
import { tenantField } from './common.ts';

/** Operator token lifetime: `expires_in_days` defaults to 30 and may not exceed 365. */
export const OPERATOR_TOKEN_DEFAULT_DAYS = 30;
export const OPERATOR_TOKEN_MAX_DAYS = 365;
/** All clinics: only when asked for explicitly. */
export const ALL_TENANTS = '*';

const TENANTS_MESSAGE = 'Informe as clinicas do token (tenants: ["slug", ...]) ou "*" para todas.';

/** `POST /operator-tokens` (issue 13): a token for scripts, bound to named clinics or, explicitly, to all. */
export const issueOperatorTokenSchema = z
  .object({
    label: z.string().trim().min(1, 'Informe para que serve o token.').max(100, 'Maximo de 100 caracteres.'),
    /** The clinics the token may reset (each must exist), or `"*"` for every clinic, present and future. */
    tenants: z.union(
      [
        z.literal(ALL_TENANTS),
        z
          .array(tenantField, { error: TENANTS_MESSAGE })
          .min(1, TENANTS_MESSAGE)
          .max(100, 'No maximo 100 clinicas; use "*" para todas.')
          .transform((slugs) => [...new Set(slugs)]),
      ],
      { error: TENANTS_MESSAGE },
    ),
    expires_in_days: z
      .number({ error: `Validade em dias: um inteiro de 1 a ${OPERATOR_TOKEN_MAX_DAYS}.` })
      .int(`Validade em dias: um inteiro de 1 a ${OPERATOR_TOKEN_MAX_DAYS}.`)
      .min(1, `Validade em dias: um inteiro de 1 a ${OPERATOR_TOKEN_MAX_DAYS}.`)
      .max(OPERATOR_TOKEN_MAX_DAYS, `No maximo ${OPERATOR_TOKEN_MAX_DAYS} dias.`)
      .default(OPERATOR_TOKEN_DEFAULT_DAYS),
    /** Issue 30: may create ephemeral clinics from the clinics it is bound to (and then acts on those). */
    clone: z.boolean({ error: 'clone: true ou false.' }).default(false),
  })
  .strict();
export type IssueOperatorTokenInput = z.input<typeof issueOperatorTokenSchema>;
export type IssueOperatorToken = z.output<typeof issueOperatorTokenSchema>;

/** What the console lists: never the token, never its hash. */
export const operatorTokenView = z.object({
  id: z.number().int(),
  label: z.string(),
  prefix: z.string(),
  operator: z.string().nullable(),
  /** The clinics it may reset, or `"*"` for all. */
  tenants: z.union([z.array(z.string()), z.literal(ALL_TENANTS)]),
  created_at: z.string(),
  expires_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** May create ephemeral clinics (`POST /automation/tenants/:slug/clone`) from its clinics. */
  clone: z.boolean(),
  /** `revoked` wins over `expired`. */
  status: z.enum(['active', 'revoked', 'expired']),
});
export type OperatorTokenView = z.infer<typeof operatorTokenView>;

/** The answer of issue: the token, shown once, right after issue. */
export const issuedOperatorToken = operatorTokenView.extend({ token: z.string() });
export type IssuedOperatorToken = z.infer<typeof issuedOperatorToken>;

/** A revoked or expired token off the list (the journal keeps what it did). */
export const operatorTokenRemoved = z.object({ id: z.number().int(), removido: z.literal(true) });
