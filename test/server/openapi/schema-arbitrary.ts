import fc from 'fast-check';

/**
 * Values from a JSON Schema of the OpenAPI document, for the runtime-vs-document agreement test. Written
 * from JSON Schema alone (no gateway code). `valid` aims at values the schema accepts and `near` at values
 * one step outside it; neither has to be exact, because every sample is classified afterwards by a real
 * JSON Schema validator against the document: the generator only decides how interesting the samples are.
 */

export type Json = Record<string, any>;

/** How the generator reads the document: `$ref` resolution and a validator for filtering. */
export interface SchemaContext {
  resolve: (schema: Json) => Json;
  accepts: (schema: Json, value: unknown) => boolean;
}

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `today`, `today-130y` (the document's `x-date-range` words) as YYYY-MM-DD for the current UTC day. */
export function relativeDay(word: string, now = new Date()): string {
  const m = /^today(?:-(\d+)y)?$/.exec(word);
  if (!m) throw new Error(`unknown relative date ${word}`);
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (m[1]) d.setUTCFullYear(d.getUTCFullYear() - Number(m[1]));
  return isoDay(d.getTime());
}

/** A CPF with valid check digits (mod 11), written from the definition. */
export function cpfFrom(nine: number[]): string {
  const digits = [...nine];
  for (const length of [9, 10]) {
    const sum = digits.slice(0, length).reduce((acc, d, i) => acc + d * (length + 1 - i), 0);
    const r = (sum * 10) % 11;
    digits.push(r === 10 ? 0 : r);
  }
  return digits.join('');
}

const cpf = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 })
  .filter((d) => new Set(d).size > 1)
  .map(cpfFrom);

function dateIn(min: string, max: string): fc.Arbitrary<string> {
  const lo = Date.parse(`${min}T00:00:00Z`);
  const hi = Date.parse(`${max}T00:00:00Z`);
  const days = Math.floor((hi - lo) / DAY_MS);
  return fc.oneof(
    fc.constantFrom(min, max),
    fc.integer({ min: 0, max: days }).map((n) => isoDay(lo + n * DAY_MS)),
  );
}

function dateArb(schema: Json): fc.Arbitrary<string> {
  const range = schema['x-date-range'];
  if (range) return dateIn(relativeDay(range.minimum), relativeDay(range.maximum));
  return dateIn('1900-01-01', '2100-12-31');
}

/** No lone surrogate (such a string cannot be percent-encoded, nor sent as UTF-8). */
export function wellFormed(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** Generators for a pattern: fast-check's regex support, else a few literal tries. */
const patterns = new Map<string, fc.Arbitrary<string>>();
function patternArb(pattern: string): fc.Arbitrary<string> {
  let arb = patterns.get(pattern);
  if (!arb) {
    const regex = new RegExp(pattern, 'u');
    try {
      arb = fc.stringMatching(regex, { size: 'small' }).filter(wellFormed);
    } catch {
      arb = fc.string().filter((s) => regex.test(s));
    }
    patterns.set(pattern, arb);
  }
  return arb;
}

function stringArb(schema: Json): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  const fits = (s: string) => s.length >= min && s.length <= max;
  if (schema.format === 'date') return dateArb(schema);
  if (schema.format === 'cpf') return cpf;
  if (typeof schema.pattern === 'string') {
    const normalized = schema['x-normalized-length'];
    return patternArb(schema.pattern).filter(
      (s) =>
        fits(s) &&
        (!normalized || (normalizedLength(s) >= normalized.minimum && normalizedLength(s) <= normalized.maximum)),
    );
  }
  return fc.oneof(
    fc.string({ minLength: min, maxLength: Math.min(max, min + 12) }),
    // At the upper bound too, where it is small enough to send over and over.
    ...(Number.isFinite(max) && max <= 1000 ? [fc.string({ minLength: Math.max(min, max - 2), maxLength: max })] : []),
  );
}

export const normalizedLength = (s: string): number => s.trim().replace(/\s+/g, ' ').length;

function integerArb(schema: Json): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1000);
  return fc.oneof(
    { arbitrary: fc.integer({ min, max: Math.min(max, min + 20) }), weight: 4 },
    { arbitrary: fc.constantFrom(min, max), weight: 1 },
    { arbitrary: fc.integer({ min, max }), weight: 1 },
  );
}

const typesOf = (schema: Json): string[] =>
  Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];

/** Values the schema should accept. */
export function valid(schema: Json, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  schema = ctx.resolve(schema);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.allOf) && !schema.type && !schema.properties) {
    const whole = schema;
    return valid(schema.allOf[0], ctx, depth).filter((v) => ctx.accepts(whole, v));
  }
  if ((schema.anyOf || schema.oneOf) && !schema.type && !schema.properties) {
    return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((branch: Json) => valid(branch, ctx, depth)));
  }
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...schema, type }, ctx, depth)));
  switch (types[0]) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return integerArb(schema);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const item = schema.items ? valid(schema.items, ctx, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength = schema.minItems ?? 0;
      return fc.array(item, { minLength, maxLength: Math.min(schema.maxItems ?? 3, minLength + 3) });
    }
    case 'object':
      return objectArb(schema, ctx, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArb(schema: Json, ctx: SchemaContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Json> = schema.properties ?? {};
  const choose = (required: Set<string>, overrides: Record<string, Json>) => {
    const entries = Object.entries(properties).map(([key, property]) => {
      const override = overrides[key];
      const arb = override
        ? valid(property, ctx, depth + 1).filter((v) => ctx.accepts(override, v))
        : valid(property, ctx, depth + 1);
      return [key, required.has(key) ? arb : fc.option(arb, { nil: undefined, freq: depth > 0 ? 1 : 2 })] as const;
    });
    return fc
      .record(Object.fromEntries(entries))
      .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  };
  const required = new Set<string>(schema.required ?? []);
  // Object-level anyOf (cross-field rules, alone or under allOf): satisfy one branch of each.
  const groups: Json[][] = [schema.anyOf, ...(schema.allOf ?? []).map((member: Json) => member.anyOf)].filter(
    Array.isArray,
  );
  if (groups.length === 0) return choose(required, {});
  // One generator per combination of branches, built once (building them per sample would cost more than sending).
  const combinations = groups.reduce<Json[][]>(
    (acc, branches) => acc.flatMap((picked) => branches.map((branch) => [...picked, branch])),
    [[]],
  );
  return fc.oneof(
    ...combinations.map((picked) => {
      const overrides: Record<string, Json> = {};
      for (const branch of picked) {
        for (const [key, property] of Object.entries<Json>(branch.properties ?? {}))
          overrides[key] = overrides[key] ? { allOf: [overrides[key], property] } : property;
      }
      return choose(new Set([...required, ...picked.flatMap((branch) => branch.required ?? [])]), overrides);
    }),
  );
}

// ---------------------------------------------------------------- one step outside

const NEAR_STRINGS = [
  '',
  ' ',
  'abc',
  '0',
  '01',
  '-1',
  '1.5',
  '1e3',
  'x'.repeat(300),
  '\u0000',
  'ZZ',
  '2024-02-30',
  '2024-13-01',
  'null',
  'true',
];

/** Values one step outside the schema (or anything odd): classification decides whether they really are. */
export function near(schema: Json, ctx: SchemaContext): fc.Arbitrary<unknown> {
  schema = ctx.resolve(schema);
  const candidates: unknown[] = [...NEAR_STRINGS, 0, -1, 1.5, 1e16, null, true, [], {}];
  if (typeof schema.maxLength === 'number') candidates.push('a'.repeat(schema.maxLength + 1));
  if (typeof schema.minLength === 'number' && schema.minLength > 0)
    candidates.push('a'.repeat(schema.minLength - 1), ' '.repeat(schema.minLength + 1));
  if (typeof schema.maximum === 'number') candidates.push(schema.maximum + 1, String(schema.maximum));
  if (typeof schema.minimum === 'number') candidates.push(schema.minimum - 1);
  if (typeof schema.maxItems === 'number') candidates.push(Array.from({ length: schema.maxItems + 1 }, () => ({})));
  return fc.oneof(fc.constantFrom(...candidates), fc.jsonValue({ maxDepth: 1 }));
}

/** A JSON value with one mutation somewhere: a field added, a field removed, or a value replaced by a near one. */
export function mutated(schema: Json, value: unknown, ctx: SchemaContext): fc.Arbitrary<unknown> {
  schema = ctx.resolve(schema);
  const paths = objectPaths(schema, value, ctx);
  const objects = paths.filter(({ path }) => {
    const at = get(value, path);
    return at !== null && typeof at === 'object' && !Array.isArray(at);
  });
  const options: Array<fc.WeightedArbitrary<unknown>> = [
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(...paths)
        .chain(({ path, schema: at }) => near(at, ctx).map((v) => set(value, path, v))),
    },
  ];
  if (objects.length > 0) {
    options.push({
      weight: 2,
      arbitrary: fc.constantFrom(...objects).chain(({ path, schema: at }) => {
        const blocked: string[] = ctx.resolve(at)['x-blocked-fields'] ?? [];
        return fc
          .tuple(fc.constantFrom('campo_desconhecido', 'Nome', 'id_', ...blocked), fc.jsonValue({ maxDepth: 1 }))
          .map(([key, v]) => set(value, path, { ...(get(value, path) as Json), [key]: v }));
      }),
    });
    const removable = objects.filter(({ path }) => Object.keys(get(value, path) as Json).length > 0);
    if (removable.length > 0) {
      options.push({
        weight: 1,
        arbitrary: fc.constantFrom(...removable).chain(({ path }) => {
          const target = get(value, path) as Json;
          return fc.constantFrom(...Object.keys(target)).map((key) => set(value, path, omit(target, key)));
        }),
      });
    }
  }
  return fc.oneof(...options);
}

interface Located {
  path: (string | number)[];
  schema: Json;
}

/** Every place in `value` with the schema that governs it (following properties and items). */
function objectPaths(schema: Json, value: unknown, ctx: SchemaContext, path: (string | number)[] = []): Located[] {
  schema = ctx.resolve(schema);
  const out: Located[] = [{ path, schema }];
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const object = schemaFor(schema, 'object', ctx);
    for (const [key, v] of Object.entries(value)) {
      const property = object?.properties?.[key];
      if (property) out.push(...objectPaths(property, v, ctx, [...path, key]));
    }
  } else if (Array.isArray(value)) {
    const array = schemaFor(schema, 'array', ctx);
    value.forEach((v, i) => {
      if (array?.items) out.push(...objectPaths(array.items, v, ctx, [...path, i]));
    });
  }
  return out;
}

/** The branch of a (possibly nullable) schema that describes values of `type`. */
function schemaFor(schema: Json, type: string, ctx: SchemaContext): Json | undefined {
  schema = ctx.resolve(schema);
  if (typesOf(schema).includes(type) || (type === 'object' && schema.properties)) return schema;
  for (const branch of schema.anyOf ?? schema.oneOf ?? []) {
    const found = schemaFor(branch, type, ctx);
    if (found) return found;
  }
  return undefined;
}

const get = (value: unknown, path: (string | number)[]): unknown => path.reduce<any>((at, key) => at?.[key], value);

function set(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? set(v, rest, replacement) : v));
  return { ...(value as Json), [head]: set((value as Json)[head as string], rest, replacement) };
}

const omit = (object: Json, key: string): Json => Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
