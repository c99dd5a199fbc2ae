import { z } from 'zod';

/**
 * What the OpenAPI document says of a schema where zod's own JSON Schema cannot: a rule checked in a
 * refinement or after a transform (trimmed lengths, check digits, integers written as digits in a query
 * string, cross-field rules), a closed object, fields accepted and dropped. Declared next to the rule it
 * documents; read only by the document generator (server/openapi/json-schema.ts), never by validation.
 * test/server/openapi/agreement.test.ts fails when a declaration and the runtime rule disagree.
 */
export interface WireDoc {
  /** JSON Schema keywords laid over what zod emits; a keyword set to `null` is removed. */
  json?: Record<string, unknown>;
  /** The whole JSON Schema of the value as sent, instead of zod's. */
  replace?: Record<string, unknown>;
  /** A catchall that refuses every key it sees: the object is closed (`additionalProperties: false`). */
  refuses?: true;
  /** A field the API refuses whatever its value: left out of the document's properties (never offered). */
  blocked?: true;
  /** Keys refused with a message of their own (not offered either, listed in `x-blocked-fields`). */
  blockedKeys?: readonly string[];
  /** Keys accepted and dropped before validation: listed as properties that take any value and do nothing. */
  discarded?: readonly string[];
  /** `""` is accepted as well and means "no value" (it is forwarded as null). */
  emptyMeansNull?: true;
}

export const wireDocs = z.registry<WireDoc>();

/** Attaches `doc` to `schema` itself (no copy: the schema validates exactly as before) and returns it. */
export function documented<T extends z.ZodType>(schema: T, doc: WireDoc): T {
  wireDocs.add(schema, { ...wireDocs.get(schema), ...doc });
  return schema;
}

// ---------------------------------------------------------------- JSON Schema fragments
// Patterns use [0-9], never \d (other regex dialects read \d as any Unicode digit).

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A query or path integer: digits only, no sign, no leading zero (`01`, `+1`, `1e3` are refused). */
export const integerParam = (minimum: number, maximum = MAX_SAFE, extra: Record<string, unknown> = {}) => ({
  type: 'integer',
  minimum,
  maximum,
  description: `Inteiro de ${minimum} a ${maximum === MAX_SAFE ? '2^53-1' : maximum}, escrito so com digitos (sem sinal nem zeros a esquerda).`,
  ...extra,
});

/** Characters that can never appear in a query or path value (Unicode Cc), as a class body. */
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';

/**
 * A string whose length is checked after trimming (`String.prototype.trim`, i.e. \s at both ends):
 * between `min` and `max` characters once trimmed, any whitespace around. `printable` also refuses
 * control characters (query values). Exact, as a regular expression.
 */
export function trimmedLength(
  min: number,
  max: number | null,
  options: { printable?: boolean } = {},
): Record<string, unknown> {
  const any = options.printable ? `[^${CONTROL}]` : '[\\s\\S]';
  const space = options.printable ? `[^\\S${CONTROL}]` : '\\s';
  const solid = options.printable ? `[^\\s${CONTROL}]` : '\\S';
  const upper = max === null ? '' : String(max - 2);
  let core: string;
  if (min <= 0)
    core = max === null ? `(?:${solid}(?:${any}*${solid})?)?` : `(?:${solid}(?:${any}{0,${max - 2}}${solid})?)?`;
  else if (min === 1)
    core =
      max === null ? `${solid}(?:${any}*${solid})?` : max === 1 ? solid : `${solid}(?:${any}{0,${max - 2}}${solid})?`;
  else core = `${solid}${any}{${min - 2},${upper}}${solid}`;
  const words =
    max === null
      ? `ao menos ${min} caracteres`
      : min <= 0
        ? `no maximo ${max} caracteres`
        : `de ${min} a ${max} caracteres`;
  return {
    type: 'string',
    ...(min > 0 ? { minLength: min } : {}),
    pattern: `^${space}*${core}${space}*$`,
    description: `Texto com ${words} depois de remover os espacos das pontas${options.printable ? ', sem caracteres de controle' : ''}.`,
  };
}

/** `^(?:[Aa][Cc]|...)$`: one of `values`, in any letter case. */
export function anyCase(values: readonly string[]): string {
  const letters = (v: string) =>
    [...v]
      .map((c) =>
        /[A-Za-z]/.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'),
      )
      .join('');
  return `(?:${values.map(letters).join('|')})`;
}

/**
 * Digit strings (up to `maxLength` characters, leading zeros allowed) whose value is between 1 and `max`,
 * `max` having `maxLength` digits: exact, without lookahead.
 */
export function digitsUpTo(max: number, maxLength: number): { pattern: string; maxLength: number } {
  const bound = String(max);
  if (bound.length !== maxLength) throw new Error('digitsUpTo: the bound must have maxLength digits');
  // Fewer significant digits than the bound: any value (leading zeros fill up to maxLength).
  const shorter = `0*[1-9][0-9]{0,${maxLength - 2}}`;
  // Exactly maxLength significant digits: at most the bound, digit by digit.
  const same: string[] = [];
  for (let i = 0; i < bound.length; i++) {
    const d = Number(bound[i]);
    const low = i === 0 ? 1 : 0;
    const rest = bound.length - i - 1;
    if (d - 1 >= low) same.push(`${bound.slice(0, i)}[${low}-${d - 1}]${rest > 0 ? `[0-9]{${rest}}` : ''}`);
  }
  same.push(bound);
  return { pattern: `^(?:${shorter}|${same.join('|')})$`, maxLength };
}

/** `YYYY-MM-DD`, a real calendar date (RFC 3339 full-date). */
export const DATE_JSON = { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' };

const BASE64_ALPHABET = '[A-Za-z0-9+/]';
/**
 * Base64 text of `A*={0,2}` (or `A+={0,2}` when `oneChar`), not empty, whose length is not 4n+1: the
 * gateway's rule, exact. Canonical base64 always matches; so do a few unpadded or odd forms it accepts.
 */
export function base64Body(oneChar: boolean): string {
  const A = BASE64_ALPHABET;
  const tails = `${A}==?|${A}{2}(?:==?)?|${A}{3}=?`;
  return oneChar ? `(?:${A}{4})+(?:==)?|(?:${A}{4})*(?:${tails})` : `(?:${A}{4})+|(?:${A}{4})*(?:==|${tails})`;
}
