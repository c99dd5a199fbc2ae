import { z } from 'zod';

/** A body the public API would take (its own limit is lower for most routes; it answers 413 itself). */
export const PLAYGROUND_MAX_BODY_CHARS = 8 * 1024 * 1024;

/**
 * `POST /playground/send`: a request the signing playground signed in the browser: exactly what goes to
 * /v1, the signing headers included and the secret never. Only the public API, only the headers the spec defines.
 */
export const playgroundSendSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    path: z
      .string()
      .max(4096)
      .regex(/^\/v1(\/|\?|$)/, 'Use um caminho publico, ex.: /v1/pacientes*'),
    headers: z
      .object({
        'x-api-key': z.string().max(256),
        'x-timestamp': z.string().max(32),
        'x-signature': z.string().max(256),
        'idempotency-key': z.string().max(256).optional(),
        'content-type': z.string().max(256).optional(),
      })
      .strict(),
    body: z.string().max(PLAYGROUND_MAX_BODY_CHARS).optional(),
  })
  .strict();
export type PlaygroundRequest = z.infer<typeof playgroundSendSchema>;

/** The gateway's answer to it, whole: status, headers (cookies and hop-by-hop ones dropped), body as text. */
export const playgroundAnswer = z.object({
  status: z.number().int(),
  headers: z.array(z.tuple([z.string(), z.string()])),
  body: z.string(),
  duration_ms: z.number(),
});
export type PlaygroundAnswer = z.infer<typeof playgroundAnswer>;

/** `GET /keys/:id/api-key`: the key's public half in full (lists keep it masked). */
export const fullApiKey = z.object({ id: z.number().int(), api_key: z.string(), status: z.string() });
