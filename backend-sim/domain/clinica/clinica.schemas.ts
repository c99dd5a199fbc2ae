import { z } from 'zod';

const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => (v ? 1 : 0));
const defaultId = z.number().int().positive().nullable();

export const settingsPatchSchema = z.object({
  nome: z.string().min(1).max(200).optional(),
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
    .optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;
