import { z } from 'zod';

/**
 * A clinic's settings (backend-sim `GET|PATCH /tenants/{slug}/settings`): the clinic's rules and the
 * defaults exam create applies. The console edits them through the gateway (`/admin/api/tenants/{slug}/settings`),
 * which forwards the same patch and returns the same view.
 */
const defaultIds = z.object({
  unidade_id: z.number().int().nullable(),
  medico_exame_id: z.number().int().nullable(),
  medico_laudo_id: z.number().int().nullable(),
  convenio_id: z.number().int().nullable(),
});

export const clinicSettings = z.object({
  nome: z.string(),
  cpf_obrigatorio: z.boolean(),
  celular_obrigatorio: z.boolean(),
  solicitante_obrigatorio: z.boolean(),
  medico_laudo_obrigatorio: z.boolean(),
  /** The external report center (central de laudos) is reachable; off: deleting an exam exported to it is refused (BACKEND_CENTRAL_SYNC). */
  central_laudos_disponivel: z.boolean(),
  defaults: defaultIds,
});
export type ClinicSettings = z.output<typeof clinicSettings>;

/** What exam create reads of them (server/routes/v1/exames-create.ts, `GET /v1/config`). */
export const exameSettings = clinicSettings.pick({
  solicitante_obrigatorio: true,
  medico_laudo_obrigatorio: true,
  defaults: true,
});
export type ExameSettings = z.output<typeof exameSettings>;

const defaultId = z.number().int().positive('Use um id positivo ou deixe vazio.').nullable();

/**
 * A change of settings: only what is sent changes; a default set to null is cleared. `flag` reads the
 * clinic's switches: booleans on the wire; backend-sim also takes the 0 and 1 it stores (its seed and tests).
 */
export const clinicSettingsPatchOf = <F extends z.ZodType>(flag: F) =>
  z.object({
    nome: z.string().trim().min(1, 'Informe o nome.').max(200).optional(),
    cpf_obrigatorio: flag.optional(),
    celular_obrigatorio: flag.optional(),
    solicitante_obrigatorio: flag.optional(),
    medico_laudo_obrigatorio: flag.optional(),
    central_laudos_disponivel: flag.optional(),
    defaults: z
      .object({
        unidade_id: defaultId.optional(),
        medico_exame_id: defaultId.optional(),
        medico_laudo_id: defaultId.optional(),
        convenio_id: defaultId.optional(),
      })
      .strict()
      .optional(),
  });

/** The patch the console sends and the gateway forwards: booleans, nothing else. */
export const clinicSettingsPatch = clinicSettingsPatchOf(z.boolean()).strict();
export type ClinicSettingsPatch = z.output<typeof clinicSettingsPatch>;

/**
 * The clinic's rules for exam create's optional doctors, read the same way wherever they are enforced:
 * the field a clinic makes mandatory, unless what replaces it is there (a report group replaces the reporting doctor).
 */
export const clinicRequires = {
  medico_solicitante_id: (settings: Pick<ExameSettings, 'solicitante_obrigatorio'>, _body: unknown): boolean =>
    settings.solicitante_obrigatorio,
  medico_laudo_id: (
    settings: Pick<ExameSettings, 'medico_laudo_obrigatorio'>,
    body: { grupos_laudos_id?: number | null },
  ): boolean => settings.medico_laudo_obrigatorio && !body.grupos_laudos_id,
} as const;
