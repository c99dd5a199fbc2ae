/**
 * Console API schemas of issue 13 (tenant reset, operator API tokens), written once: the server
 * validates with them and the console imports this file for its forms. No Node imports.
 */
import { z } from 'zod';

/** Body of a tenant reset (console and automation routes); an empty body resets the data only. */
export const tenantResetSchema = z
  .object({
    /** Also delete the clinic's audit entries. */
    audit: z.boolean().default(false),
    /** Also delete the files uploaded for the clinic. */
    files: z.boolean().default(false),
  })
  .strict();
export type TenantResetInput = z.input<typeof tenantResetSchema>;

export const issueOperatorTokenSchema = z
  .object({
    label: z.string().trim().min(1, 'Informe para que serve o token.').max(100, 'Maximo de 100 caracteres.'),
  })
  .strict();
export type IssueOperatorTokenInput = z.infer<typeof issueOperatorTokenSchema>;

/** What a reset removed and how long it took (answer of every reset route and of the CLI). */
export interface TenantResetResult {
  slug: string;
  nome: string;
  /** Rows put back into the clinic database. */
  rows_restored: number;
  idempotency_keys_removed: number;
  idempotency_markers_removed: number;
  /** null when not asked for. */
  audit_entries_removed: number | null;
  files_removed: number | null;
  /** backend-sim's database restore alone. */
  database_ms: number;
  duration_ms: number;
}

/** What the console lists: never the token, never its hash. */
export interface OperatorTokenView {
  id: number;
  label: string;
  prefix: string;
  operator: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'revoked';
}
