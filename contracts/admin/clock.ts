import { z } from 'zod';

/** Ten years: far beyond any rule of the spec (30 days), near enough to catch a typo (25000d). */
export const MAX_CLOCK_OFFSET_SECONDS = 3650 * 86_400;

/** `PUT /clock`: exactly one of: move ahead of where the clock is now, or set the offset from real time. */
export const clockChangeSchema = z
  .object({
    advance_seconds: z.number().int().min(1, 'Avance ao menos 1 segundo.').max(MAX_CLOCK_OFFSET_SECONDS).optional(),
    offset_seconds: z
      .number()
      .int()
      .min(0, 'O relogio so avanca: offset 0 ou maior.')
      .max(MAX_CLOCK_OFFSET_SECONDS)
      .optional(),
  })
  .strict()
  .refine((input) => (input.advance_seconds === undefined) !== (input.offset_seconds === undefined), {
    message: 'Informe advance_seconds ou offset_seconds (um dos dois).',
  });
export type ClockChange = z.infer<typeof clockChangeSchema>;

/** The appliance clock as the console, the console API and the CLI show it (`GET|PUT|DELETE /clock`). */
export const clockState = z.object({
  /** Clock control available (APP_ENV=development). */
  enabled: z.boolean(),
  /** The appliance runs ahead of real time. */
  shifted: z.boolean(),
  offset_seconds: z.number().int(),
  /** `1d 1h`: the offset for people. */
  offset_text: z.string(),
  real_time: z.string(),
  appliance_time: z.string(),
  /** Real time of the last change; null at real time. */
  changed_at: z.string().nullable(),
});
export type ClockState = z.infer<typeof clockState>;
