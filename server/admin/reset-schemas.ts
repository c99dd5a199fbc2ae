/**
 * Console API schemas of issue 13 (tenant reset, operator API tokens), written once: the server
 * validates with them and the console imports this file for its forms. No Node imports.
 */
import { z } from 'zod';

/** The journal keeps what a reset would once have deleted (issue 19): said plainly to whoever still asks. */
export const RESET_KEEPS_JOURNAL = 'Um reset nao apaga o journal: as entradas da clinica ficam (retencao de 30 dias) e o reset grava a sua. Remova "audit".';

/**
 * Body of a tenant reset (console and automation routes); an empty body resets the data only.
 * `audit: true` (delete the clinic's journal entries) is refused with a 400 that says why rather than
 * dropped from the schema, so a script written for the old behaviour learns that its entries stay;
 * `audit: false` asks for nothing and is still accepted.
 */
export const tenantResetSchema = z
  .object({
    audit: z.literal(false, { error: RESET_KEEPS_JOURNAL }).optional(),
    /** Also delete the files uploaded for the clinic. */
    files: z.boolean().default(false),
  })
  .strict()
  .transform(({ files }) => ({ files }));
export type TenantResetInput = z.input<typeof tenantResetSchema>;

/** Operator token lifetime: `expires_in_days` defaults to 30 and may not exceed 365. */
export const OPERATOR_TOKEN_DEFAULT_DAYS = 30;
export const OPERATOR_TOKEN_MAX_DAYS = 365;
/** All clinics: only when asked for explicitly. */
export const ALL_TENANTS = '*';

const TENANTS_MESSAGE = 'Informe as clinicas do token (tenants: ["slug", ...]) ou "*" para todas.';

export const issueOperatorTokenSchema = z
  .object({
    label: z.string().trim().min(1, 'Informe para que serve o token.').max(100, 'Maximo de 100 caracteres.'),
    /** The clinics the token may reset (each must exist), or `"*"` for every clinic, present and future. */
    tenants: z.union(
      [
        z.literal(ALL_TENANTS),
        z
          .array(z.string().trim().min(1).max(63), { error: TENANTS_MESSAGE })
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
  })
  .strict();
export type IssueOperatorTokenInput = z.input<typeof issueOperatorTokenSchema>;
export type IssueOperatorToken = z.output<typeof issueOperatorTokenSchema>;

/** What a reset removed and how long it took (answer of every reset route and of the CLI). */
export interface TenantResetResult {
  slug: string;
  nome: string;
  /** Rows put back into the clinic database. */
  rows_restored: number;
  idempotency_keys_removed: number;
  idempotency_markers_removed: number;
  files_removed: number | null;
  /** backend-sim's database restore alone. */
  database_ms: number;
  duration_ms: number;
}

/** Whether this appliance resets clinics (`GET /admin/api/tenant-reset-policy`; the console's reset dialog). */
export interface TenantResetPolicyView {
  allowed: boolean;
  app_env: 'development' | 'production';
  /** ALLOW_TENANT_RESET is set. */
  opt_in: boolean;
  /** The opt-in variable's name, for the message. */
  opt_in_variable: 'ALLOW_TENANT_RESET';
}

/** What the console lists: never the token, never its hash. */
export interface OperatorTokenView {
  id: number;
  label: string;
  prefix: string;
  operator: string | null;
  /** The clinics it may reset, or `"*"` for all. */
  tenants: string[] | typeof ALL_TENANTS;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** `revoked` wins over `expired`. */
  status: 'active' | 'revoked' | 'expired';
}
