import { z } from 'zod';
import { tenantSlug } from '../backend/tenants.ts';
import { clinicSettings, clinicSettingsPatch } from '../backend/settings.ts';

/** A clinic as `GET /tenants` lists it. */
export const tenantView = z.object({
  id: z.number().int(),
  slug: z.string(),
  nome: z.string(),
  sandbox: z.boolean(),
  status: z.string(),
  created_at: z.string(),
  /** Its keys not revoked. */
  chaves_ativas: z.number().int(),
  /** An ephemeral clinic's template (`slug` or `slug@snapshot`); null for a permanent clinic (issue 30). */
  template: z.string().nullable(),
  /** When the appliance drops it (null: never). */
  expires_at: z.string().nullable(),
});
export type TenantView = z.infer<typeof tenantView>;

/** `POST /tenants`. */
export const createTenantSchema = z.object({
  slug: tenantSlug,
  nome: z.string().trim().min(1, 'Informe o nome.').max(200),
});
export type CreateTenantInput = z.infer<typeof createTenantSchema>;

/**
 * `POST /tenants`: the clinic as listed (its id, slug and name); `backend_ready`: backend-sim created the clinic
 * database (false: it will on the next start).
 */
export const tenantCreated = tenantView
  .pick({ id: true, slug: true, nome: true })
  .extend({ backend_ready: z.boolean() });

/**
 * `GET|PATCH /tenants/:slug/settings`: backend-sim's settings, through the gateway unchanged (the patch is
 * the one backend-sim takes; the gateway also keeps its copy of the clinic's name in step).
 */
export const tenantSettingsSchema = clinicSettingsPatch;
export type TenantSettingsInput = z.infer<typeof tenantSettingsSchema>;
export const tenantSettingsView = clinicSettings;
export type TenantSettingsView = z.infer<typeof tenantSettingsView>;

/** `GET /tenants/:slug/medicos?q=`: the doctors, for the key binding and the settings' default pickers. */
export const medicosQuery = z.object({ q: z.string().trim().max(100).optional() });
export const medicoOption = z.object({
  id: z.number().int(),
  nome: z.string(),
  especialidade: z.string(),
  /** `CRM 123456/SP`, or empty. */
  conselho: z.string(),
  /** Roles (exame, laudo, solicitante…): the settings' default pickers offer only doctors with the role. */
  papeis: z.array(z.string()),
  ativo: z.boolean(),
});
export type MedicoOption = z.infer<typeof medicoOption>;

/** `GET /tenants/:slug/unidades|convenios`: a unit or an insurer for the settings' default pickers. */
export const catalogOption = z.object({
  id: z.number().int(),
  nome: z.string(),
  /** A short second line: the unit's city/UF, the insurer's ANS code. */
  detalhe: z.string(),
  ativo: z.boolean(),
});
export type CatalogOption = z.infer<typeof catalogOption>;

/** The journal keeps what a reset would once have deleted (issue 19): said plainly to whoever still asks. */
export const RESET_KEEPS_JOURNAL =
  'Um reset nao apaga o journal: as entradas da clinica ficam (retencao de 30 dias) e o reset grava a sua. Remova "audit".';

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

/** What a reset removed and how long it took (answer of every reset route and of the CLI). */
export const tenantResetResult = z.object({
  slug: z.string(),
  nome: z.string(),
  /** Rows put back into the clinic database. */
  rows_restored: z.number().int(),
  idempotency_keys_removed: z.number().int(),
  idempotency_markers_removed: z.number().int(),
  files_removed: z.number().int().nullable(),
  /** backend-sim's database restore alone. */
  database_ms: z.number(),
  duration_ms: z.number(),
});
export type TenantResetResult = z.infer<typeof tenantResetResult>;

/** Whether this appliance resets clinics (`GET /tenant-reset-policy`; the console's reset dialog). */
export const tenantResetPolicyView = z.object({
  allowed: z.boolean(),
  app_env: z.enum(['development', 'production']),
  /** ALLOW_TENANT_RESET is set. */
  opt_in: z.boolean(),
  /** The opt-in variable's name, for the message. */
  opt_in_variable: z.literal('ALLOW_TENANT_RESET'),
});
export type TenantResetPolicyView = z.infer<typeof tenantResetPolicyView>;
