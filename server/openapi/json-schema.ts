import { z } from 'zod';
import { wireDocs, type WireDoc } from '../../contracts/schemas/wire.ts';

/**
 * zod → JSON Schema 2020-12 for the OpenAPI document, from the very schemas the routes validate with.
 * zod's converter does most of it; the `override` below adds what it cannot see (contracts/schemas/wire.ts):
 * closed objects, blocked and discarded fields, rules checked after a transform or in a refinement.
 */

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema node, read and rewritten keyword by keyword as zod emitted it
export type JsonSchema = Record<string, any>;
/** `input`: what a client sends (request bodies, parameters). `output`: what the gateway answers. */
export type Io = 'input' | 'output';

export const schemaRef = (name: string): string => `#/components/schemas/${name}`;

type AnyZod = z.core.$ZodType;

const DISCARDED_FIELD: JsonSchema = {
  description: 'Aceito e descartado antes de qualquer validacao: nao tem efeito (spec). Qualquer valor.',
  deprecated: true,
};

/** `doc` of the schema, plus the structural facts (closed, blocked keys) of the schemas it refines. */
function docsOf(schema: AnyZod): { own: WireDoc | undefined; blockedKeys: string[] } {
  const own = wireDocs.get(schema as z.ZodType);
  const blockedKeys = new Set<string>();
  for (let s: AnyZod | undefined = schema; s; s = (s._zod as { parent?: AnyZod }).parent) {
    for (const key of wireDocs.get(s as z.ZodType)?.blockedKeys ?? []) blockedKeys.add(key);
  }
  return { own, blockedKeys: [...blockedKeys] };
}

const acceptsEmptyString = (json: JsonSchema): boolean =>
  json.type === 'string' &&
  !json.minLength &&
  (typeof json.pattern !== 'string' || new RegExp(json.pattern, 'u').test('')) &&
  !json.enum &&
  !json.format &&
  json.const === undefined;

function mergeInto(json: JsonSchema, keywords: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(keywords)) {
    if (value === null) delete json[key];
    else json[key] = structuredClone(value);
  }
}

function override(schema: AnyZod, json: JsonSchema, io: Io): void {
  const def = schema._zod.def as { type: string; shape?: Record<string, AnyZod>; catchall?: AnyZod };
  const { own, blockedKeys } = docsOf(schema);

  if (def.type === 'object') {
    // An answer may gain fields in a later release (spec 01 § Versioning: additive), so answers are not closed:
    // a client validating them keeps working. The gateway strips anything its schema does not name.
    if (io === 'output' && json.additionalProperties === false) delete json.additionalProperties;
    // A catchall that refuses every key: nothing but the named properties is accepted.
    if (def.catchall && wireDocs.get(def.catchall as z.ZodType)?.refuses) json.additionalProperties = false;
    const blocked = Object.entries(def.shape ?? {})
      .filter(([, field]) => wireDocs.get(field as z.ZodType)?.blocked)
      .map(([key]) => key);
    if (blocked.length > 0) {
      json.properties = Object.fromEntries(
        Object.entries(json.properties ?? {}).filter(([key]) => !blocked.includes(key)),
      );
      if (json.required) json.required = json.required.filter((key: string) => !blocked.includes(key));
    }
    const refused = [...blocked, ...blockedKeys];
    if (refused.length > 0 && io === 'input') json['x-blocked-fields'] = refused;
  }
  if (!own) return;

  if (own.replace && io === 'input') {
    for (const key of Object.keys(json)) delete json[key];
    mergeInto(json, own.replace);
  }
  if (own.discarded && io === 'input') {
    json.properties = {
      ...json.properties,
      ...Object.fromEntries(own.discarded.map((key) => [key, { ...DISCARDED_FIELD }])),
    };
    json['x-discarded-fields'] = [...own.discarded];
  }
  if (own.emptyMeansNull && io === 'input') {
    const options: JsonSchema[] = json.anyOf
      ? [...json.anyOf]
      : [json.type === 'null' ? { type: 'null' } : { ...json }];
    if (!options.some(acceptsEmptyString)) options.push({ const: '' });
    for (const key of Object.keys(json)) delete json[key];
    json.anyOf = options;
    json.description = [options.find((o) => o.description)?.description, '`null` ou `""`: sem valor.']
      .filter(Boolean)
      .join(' ');
  }
  if (own.json) mergeInto(json, own.json);
}

/**
 * Rewrites what zod emits into what other tools read the same way: `\d` → `[0-9]` in patterns (in some
 * dialects `\d` is any Unicode digit), `exclusiveMinimum: 0` of an integer → `minimum: 1`.
 */
function normalize(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) normalize(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const json = node as JsonSchema;
  if (typeof json.pattern === 'string') json.pattern = asciiDigits(json.pattern);
  if (json.type === 'number' && Array.isArray(json.enum) && json.enum.every(Number.isInteger)) json.type = 'integer';
  if (json.type === 'integer' && json.exclusiveMinimum === 0 && json.minimum === undefined) {
    delete json.exclusiveMinimum;
    json.minimum = 1;
  }
  for (const value of Object.values(json)) normalize(value);
}

/** `\d` → `[0-9]`, and inside a class `\d` → `0-9`. */
export function asciiDigits(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === 'd') out += inClass ? '0-9' : '[0-9]';
      else out += c + (next ?? '');
      i++;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

/**
 * Converts named zod schemas of one direction at once. A named schema nested in another becomes
 * `{$ref: '#/components/schemas/<name>'}`; everything else is inlined.
 */
export function toJsonSchemas(named: ReadonlyMap<string, z.ZodType>, io: Io): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of named) {
    if (registry.has(schema))
      throw new Error(`OpenAPI: one schema under two names (${registry.get(schema)!.id}, ${name})`);
    registry.add(schema, { id: name });
  }
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    cycles: 'throw',
    reused: 'inline',
    uri: schemaRef,
    override: (ctx) => override(ctx.zodSchema, ctx.jsonSchema as JsonSchema, io),
  });
  if ('__shared' in schemas) throw new Error('OpenAPI: a schema was extracted outside the named ones');
  const result: Record<string, JsonSchema> = {};
  for (const [name, json] of Object.entries(schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = json as JsonSchema;
    normalize(rest);
    result[name] = rest;
  }
  return result;
}
