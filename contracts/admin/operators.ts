import { z } from 'zod';

/**
 * Operator accounts (issue 22 § 6). `admin`: everything. `viewer`: reads only — the journal, the keys list
 * (masked), clinics, faults — never a secret, never a write; it may sign out and change its own password.
 */
export const OPERATOR_ROLES = ['admin', 'viewer'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export const operatorRoleSchema = z.enum(OPERATOR_ROLES, { error: 'Papel invalido: use admin ou viewer.' });

/** Lowercase letters, digits, dot, hyphen and underscore; starts with a letter or digit. */
export const OPERATOR_USERNAME_REGEX = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** A password an operator chooses: long enough to be out of reach of the lockout's online guessing. */
export const OPERATOR_PASSWORD_MIN = 12;

export const newPassword = z
  .string()
  .min(OPERATOR_PASSWORD_MIN, `A senha precisa de ao menos ${OPERATOR_PASSWORD_MIN} caracteres.`)
  .max(200, 'No maximo 200 caracteres.');

/** `POST /operators`: the password is generated and shown once in the answer. */
export const createOperatorSchema = z
  .object({
    username: z
      .string()
      .trim()
      .regex(OPERATOR_USERNAME_REGEX, 'Use 1-64 letras minusculas, digitos, ponto, hifen ou sublinhado.'),
    role: operatorRoleSchema,
  })
  .strict();
export type CreateOperatorInput = z.infer<typeof createOperatorSchema>;

/** `PATCH /operators/:id`: role and/or enabled. */
export const updateOperatorSchema = z
  .object({ role: operatorRoleSchema.optional(), disabled: z.boolean().optional() })
  .strict()
  .refine((v) => v.role !== undefined || v.disabled !== undefined, { message: 'Nada para alterar.' });
export type UpdateOperatorInput = z.infer<typeof updateOperatorSchema>;

/** An operator account as the console API shows it (never a hash). */
export const operatorView = z.object({
  id: z.number().int(),
  username: z.string(),
  role: z.enum(OPERATOR_ROLES),
  status: z.enum(['active', 'disabled']),
  created_at: z.string(),
  disabled_at: z.string().nullable(),
  password_changed_at: z.string().nullable(),
  /** Live console sessions (not expired). */
  sessions: z.number().int(),
  /** Active operator tokens it issued (not revoked, not expired). */
  tokens: z.number().int(),
});
export type OperatorView = z.infer<typeof operatorView>;

/** An account with its password: the answer of create and of a password reset, and only there. */
export const operatorWithPassword = z.object({ operator: operatorView, password: z.string() });
export type OperatorWithPassword = z.infer<typeof operatorWithPassword>;

/** Why an operator change was refused (`details.motivo`). */
export const OPERATOR_REFUSALS = ['unknown_operator', 'username_taken', 'last_admin', 'self'] as const;
export type OperatorRefusal = (typeof OPERATOR_REFUSALS)[number];
