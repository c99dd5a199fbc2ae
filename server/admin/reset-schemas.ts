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
