import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import type { ZodType } from 'zod';
import { isEnvelope } from './envelope.ts';

/**
 * Route response schemas describe `data` only; the envelope is added by the envelope plugin.
 * Parsing `data` with its zod schema strips every key the schema does not name, so a
 * never-returned field cannot leak even if the backend sends it.
 */
export const envelopeSerializerCompiler: FastifySerializerCompiler<ZodType> =
  ({ schema, method, url }) =>
  (payload) => {
    if (!isEnvelope(payload) || payload.error !== null) return JSON.stringify(payload);
    const result = schema.safeParse(payload.data);
    if (!result.success) {
      throw new Error(`response of ${method} ${url} does not match its schema: ${result.error.message}`);
    }
    return JSON.stringify({ data: result.data, meta: payload.meta, error: null });
  };
