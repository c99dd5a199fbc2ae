// The stamp of a contract schema (a zod schema of contracts/schemas, the `data` of a backend answer): backend-sim
// parses an answer with the schema, serializes the result and sends the schema's stamp with it; the gateway,
// expecting the schema with the same stamp, relays that `data` without parsing it again (docs/decisions.md HOP1).
import { createHash } from 'node:crypto';
import { z } from 'zod';

export interface Contract {
  /** 22 characters of base64url: the SHA-256 of the schema's JSON Schema (output side). */
  stamp: string;
  /**
   * The schema for a serializer (fast-json-stringify, compiled by Fastify): types and properties only, so an
   * answer already parsed by the schema is written without the serializer checking it again; null when it
   * cannot stand alone (a `$ref`).
   */
  serialization: Record<string, unknown> | null;
}

const contracts = new WeakMap<z.ZodType, Contract | null>();

/**
 * The contract of `schema`, or null when its JSON Schema does not say all it checks (a refinement, a transform,
 * a pipe): two such schemas could share a stamp and check different things, so they get no stamp and their
 * answers are always parsed by the gateway.
 */
export function contractOf(schema: z.ZodType): Contract | null {
  let contract = contracts.get(schema);
  if (contract === undefined) {
    contract = describe(schema);
    contracts.set(schema, contract);
  }
  return contract;
}

function describe(schema: z.ZodType): Contract | null {
  let faithful = true;
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, {
      target: 'draft-07',
      io: 'output',
      override: ({ zodSchema }) => {
        const def = zodSchema._zod.def as { type: string; checks?: Array<{ _zod: { def: { check: string } } }> };
        if (def.type === 'pipe' || def.type === 'transform' || def.checks?.some((c) => c._zod.def.check === 'custom'))
          faithful = false;
      },
    }) as Record<string, unknown>;
  } catch {
    // Unrepresentable (a transform, a custom type): no stamp.
    return null;
  }
  if (!faithful) return null;
  const { $schema: _version, ...body } = json;
  const text = JSON.stringify(body);
  return {
    stamp: createHash('sha256').update(text).digest('base64url').slice(0, 22),
    serialization: text.includes('"$ref"') ? null : (forSerializer(body) as Record<string, unknown>),
  };
}

/** Keywords a serializer needs to write a value: its type, properties and items. */
const SERIALIZER_KEYWORDS = new Set(['type', 'properties', 'items', 'required', 'additionalProperties']);

/**
 * A copy of a JSON Schema reduced to what a serializer needs, for data that has already passed the schema:
 * value checks (lengths, ranges, patterns, formats, enums) dropped, and `anyOf: [X, null]` written as the
 * nullable X (fast-json-stringify would otherwise validate each value to choose the branch). Any other union
 * is kept whole: its branches' checks are what chooses the branch.
 */
function forSerializer(node: unknown): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const source = node as Record<string, unknown>;
  if (source.anyOf || source.oneOf) return nullableOf(source) ?? source;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (!SERIALIZER_KEYWORDS.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, property]) => [name, forSerializer(property)]),
      );
    } else {
      out[key] = key === 'items' ? forSerializer(value) : value;
    }
  }
  return out;
}

function nullableOf(node: Record<string, unknown>): Record<string, unknown> | null {
  const branches = node.anyOf as Array<Record<string, unknown>> | undefined;
  if (branches?.length !== 2 || node.oneOf) return null;
  const other = branches.find((b) => b.type !== 'null');
  if (
    !other ||
    !branches.some((b) => b.type === 'null') ||
    typeof other.type !== 'string' ||
    other.anyOf ||
    other.oneOf
  )
    return null;
  return { ...(forSerializer(other) as Record<string, unknown>), type: [other.type, 'null'] };
}
