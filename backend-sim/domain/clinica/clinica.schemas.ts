import { z } from 'zod';
import { clinicSettingsPatchOf } from '../../../contracts/backend/settings.ts';

/** The settings patch of contracts/backend/settings.ts; the switches also as the 0 and 1 they are stored as. */
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => (v ? 1 : 0));

export const settingsPatchSchema = clinicSettingsPatchOf(flag);
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;
