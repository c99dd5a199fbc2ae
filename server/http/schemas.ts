import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import type { ZodType } from 'zod';
import { isEnvelope } from './envelope.ts';

/**
 * Route response schemas describe `data` only; the envelope is added by the envelope plugin.
 * Parsing `data` with its zod schema strips every key the schema does not name, so a
 * never-returned field cannot leak even if the backend sends it.
 */
const conformingData = new WeakSet<object>();

/**
 * Marks `data` as already produced by the route's own response schema (the backend client parses
 * the backend's answer with it), so the serializer does not parse it a second time (issue 15: no
 * re-validation of what the schema already guarantees). Only objects can be marked.
 */
export function conforming<T>(data: T): T {
  if (data !== null && typeof data === 'object') conformingData.add(data);
  return data;
}

/**
 * `data` as JSON text, written into the envelope as it is: the backend's, stamped with the route's own schema after
 * parsing it with that schema (BackendClient.relay, docs/decisions.md HOP1), or the ping's, written by its own
 * serializer in its schema's shape (server/routes/v1/ping.ts pongJson, decision S32-2).
 */
export class RelayedJson {
  constructor(readonly json: string) {}
}

export const envelopeSerializerCompiler: FastifySerializerCompiler<ZodType> =
  ({ schema, method, url }) =>
  (payload) => {
    if (!isEnvelope(payload) || payload.error !== null) return JSON.stringify(payload);
    const data = payload.data;
    // The key order of JSON.stringify(payload) below: data, meta, error.
    if (data instanceof RelayedJson) return `{"data":${data.json},"meta":${JSON.stringify(payload.meta)},"error":null}`;
    if (data !== null && typeof data === 'object' && conformingData.has(data)) return JSON.stringify(payload);
    const result = schema.safeParse(data);
    if (!result.success) {
      throw new Error(`response of ${method} ${url} does not match its schema: ${result.error.message}`);
    }
    return JSON.stringify({ data: result.data, meta: payload.meta, error: null });
  };
