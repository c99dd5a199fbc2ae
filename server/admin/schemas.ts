/**
 * Console API schemas, written once: the server validates requests with them and the console
 * (console/src) imports this file to validate its forms before sending. Keep it free of Node imports.
 */
import { z } from 'zod';
import { ALL_SCOPES, SCOPE_PRESETS } from '../../contracts/scopes.ts';

export { ALL_SCOPES, SCOPE_PRESETS };

export const TENANT_SLUG_REGEX = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

export const loginSchema = z.object({
  username: z.string().trim().min(1, 'Informe o usuario.').max(100),
  password: z.string().min(1, 'Informe a senha.').max(200),
});
export type LoginInput = z.infer<typeof loginSchema>;

export const scopeSchema = z.enum(ALL_SCOPES);

const medicoId = z.number({ error: 'Medico invalido.' }).int().min(0, 'Medico invalido.');
const label = z.string().trim().max(100, 'Maximo de 100 caracteres.');

export const issueKeySchema = z.object({
  label: label.default(''),
  scopes: z.array(scopeSchema).min(1, 'Escolha ao menos um escopo.'),
  /** 0 = no doctor bound (the key sees the whole clinic). */
  medico_id: medicoId.default(0),
});
export type IssueKeyInput = z.infer<typeof issueKeySchema>;

export const updateKeySchema = z
  .object({
    label: label.optional(),
    scopes: z.array(scopeSchema).min(1, 'Escolha ao menos um escopo.').optional(),
    medico_id: medicoId.optional(),
  })
  .strict()
  .refine((v) => v.label !== undefined || v.scopes !== undefined || v.medico_id !== undefined, {
    message: 'Nada para alterar.',
  });
export type UpdateKeyInput = z.infer<typeof updateKeySchema>;

export const createTenantSchema = z.object({
  slug: z.string().trim().regex(TENANT_SLUG_REGEX, 'Use 1-40 letras minusculas, digitos ou hifens.'),
  nome: z.string().trim().min(1, 'Informe o nome.').max(200),
});
export type CreateTenantInput = z.infer<typeof createTenantSchema>;

const defaultId = z.number().int().positive('Use um id positivo ou deixe vazio.').nullable();

/** Mirrors backend-sim's settings patch; booleans only on this side. */
export const tenantSettingsSchema = z
  .object({
    nome: z.string().trim().min(1, 'Informe o nome.').max(200).optional(),
    cpf_obrigatorio: z.boolean().optional(),
    celular_obrigatorio: z.boolean().optional(),
    solicitante_obrigatorio: z.boolean().optional(),
    medico_laudo_obrigatorio: z.boolean().optional(),
    /** The external report center (central de laudos) is reachable; off: deleting an exam exported to it is refused (BACKEND_CENTRAL_SYNC). */
    central_laudos_disponivel: z.boolean().optional(),
    defaults: z
      .object({
        unidade_id: defaultId.optional(),
        medico_exame_id: defaultId.optional(),
        medico_laudo_id: defaultId.optional(),
        convenio_id: defaultId.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type TenantSettingsInput = z.infer<typeof tenantSettingsSchema>;

export const FAULT_KINDS = ['http500', 'drop', 'invalid_json', 'hang', 'latency'] as const;
export const FAULT_METHODS = ['*', 'GET', 'POST', 'PATCH', 'DELETE'] as const;

/** A fault as the operator thinks of it: a public /v1 path (glob), not backend-sim's internal route. */
export const faultSchema = z
  .object({
    /** Tenant slug, or `*` for every clinic. */
    tenant: z.string().trim().min(1).max(63).default('*'),
    method: z.enum(FAULT_METHODS).default('*'),
    path: z
      .string()
      .trim()
      .regex(/^\/v1\/[A-Za-z0-9_\-/*?.]*$/, 'Use um caminho publico, ex.: /v1/pacientes*'),
    kind: z.enum(FAULT_KINDS),
    latency_ms: z.number().int().min(0).max(120_000, 'No maximo 120000 ms.').default(0),
    failure_rate: z.number().min(0).max(1, 'Entre 0 e 1.').default(1),
  })
  .refine((f) => f.kind !== 'latency' || f.latency_ms > 0, { message: 'Informe a latencia em ms.', path: ['latency_ms'] });
export type FaultInput = z.infer<typeof faultSchema>;

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v ? v : undefined));
const optionalInt = (min: number, max: number) =>
  z
    .union([z.string(), z.number()])
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .pipe(z.number().int().min(min).max(max).optional());
const optionalDate = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.iso.datetime({ offset: true, local: false, message: 'Data invalida (ISO 8601).' }).optional());

/** Audit browser filters; query-string friendly (every value may arrive as a string). */
export const auditQuerySchema = z.object({
  tenant: optionalText(63),
  chave_id: optionalInt(1, Number.MAX_SAFE_INTEGER),
  method: z
    .string()
    .optional()
    .transform((v) => (v ? v.toUpperCase() : undefined))
    .pipe(z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD']).optional()),
  /** Prefix of path and query, e.g. `/v1/pacientes`. */
  path: optionalText(300),
  status: optionalInt(100, 599),
  error_code: optionalText(60),
  request_id: optionalText(64),
  source: z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(z.enum(['api', 'console']).optional()),
  from: optionalDate,
  to: optionalDate,
  cursor: optionalText(200),
  limit: optionalInt(1, 200).transform((v) => v ?? 50),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** Filters of the unattributed groups (requests that named no existing key, counted per minute). */
export const unattributedQuerySchema = z.object({
  client_ip: optionalText(64),
  status: optionalInt(100, 599),
  error_code: optionalText(60),
  from: optionalDate,
  to: optionalDate,
  /** The last id of the previous page (newest first). */
  before_id: optionalInt(1, Number.MAX_SAFE_INTEGER),
  limit: optionalInt(1, 200).transform((v) => v ?? 50),
});
export type UnattributedQuery = z.infer<typeof unattributedQuerySchema>;

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

const newPassword = z
  .string()
  .min(OPERATOR_PASSWORD_MIN, `A senha precisa de ao menos ${OPERATOR_PASSWORD_MIN} caracteres.`)
  .max(200, 'No maximo 200 caracteres.');

/** `POST /operators`: the password is generated and shown once in the answer. */
export const createOperatorSchema = z
  .object({
    username: z.string().trim().regex(OPERATOR_USERNAME_REGEX, 'Use 1-64 letras minusculas, digitos, ponto, hifen ou sublinhado.'),
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

/** `POST /auth/password`: your own password, the current one required. */
export const changePasswordSchema = z
  .object({
    current_password: z.string().min(1, 'Informe a senha atual.').max(200),
    new_password: newPassword,
  })
  .strict()
  .refine((v) => v.new_password !== v.current_password, { message: 'A nova senha deve ser diferente da atual.', path: ['new_password'] });
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

/** An operator account as the console API shows it (never a hash). */
export interface OperatorView {
  id: number;
  username: string;
  role: OperatorRole;
  status: 'active' | 'disabled';
  created_at: string;
  disabled_at: string | null;
  password_changed_at: string | null;
  /** Live console sessions (not expired). */
  sessions: number;
  /** Active operator tokens it issued (not revoked, not expired). */
  tokens: number;
}
