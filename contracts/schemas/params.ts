import { z } from 'zod';
import { DATE_JSON, documented, integerParam, MAX_SAFE, trimmedLength } from './wire.ts';

// Portuguese validation messages (the spec's messages are Portuguese); accents are stripped where errors are written.
z.config(z.locales.pt());

const POSITIVE_INT = /^[1-9]\d{0,15}$/;
const NON_NEGATIVE_INT = /^(?:0|[1-9]\d{0,15})$/;

/** A path id: a positive integer written with digits only (no sign, no leading zero, no exponent). */
export const idParam = documented(
  z
    .string()
    .regex(POSITIVE_INT, 'Deve ser um inteiro positivo.')
    .transform(Number)
    .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)),
  { replace: integerParam(1) },
);

/** Optional integer > 0 in a query string. */
export const positiveIntQuery = idParam;

export const limitQuery = documented(
  z
    .string()
    .regex(POSITIVE_INT, 'Deve ser um inteiro entre 1 e 200.')
    .transform(Number)
    .pipe(z.number().int().min(1, 'Deve ser um inteiro entre 1 e 200.').max(200, 'Deve ser um inteiro entre 1 e 200.'))
    .default(50),
  {
    replace: integerParam(1, 200, {
      default: 50,
      description: 'Tamanho da pagina: inteiro de 1 a 200, so com digitos.',
    }),
  },
);

export const offsetQuery = documented(
  z
    .string()
    .regex(NON_NEGATIVE_INT, 'Deve ser um inteiro maior ou igual a 0.')
    .transform(Number)
    .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
    .default(0),
  {
    replace: integerParam(0, MAX_SAFE, { default: 0, description: 'Registros a pular: inteiro >= 0, so com digitos.' }),
  },
);

export const paginationQuery = { limit: limitQuery, offset: offsetQuery };

/** Search text (a name, a prefix): trimmed, then at least `min` characters, at most 100. */
export const searchText = (min: number) =>
  documented(
    z
      .string()
      .transform((v) => v.trim())
      .pipe(z.string().min(min, `Informe ao menos ${min} caracteres.`).max(100, 'Deve ter no maximo 100 caracteres.')),
    { replace: trimmedLength(min, 100, { printable: true }) },
  );

/** `0` or `1`, strictly. */
export const flagQuery = documented(
  z.enum(['0', '1']).transform((v) => v === '1'),
  { replace: { type: 'integer', enum: [0, 1], description: '`0` ou `1`, exatamente.' } },
);

export const dateString = documented(
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Data no formato YYYY-MM-DD.')
    .refine((value) => {
      const d = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
    }, 'Data inexistente.'),
  { json: DATE_JSON },
);

/** The rule of an inclusive period in a query: `later`, when sent with `earlier`, may not precede it. */
export const periodInOrder =
  (earlier: string, later: string) =>
  (query: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const [from, to] = [query[earlier] as string | undefined, query[later] as string | undefined];
    if (from && to && from > to)
      ctx.addIssue({ code: 'custom', path: [later], message: `Deve ser igual ou posterior a ${earlier}.` });
  };

/**
 * A query whose `later` date may not precede `earlier` (both inclusive): the rule (periodInOrder), and the
 * document saying it with `x-not-before` on the later parameter (no JSON Schema keyword compares two parameters).
 */
export const orderedDates = <T extends z.ZodObject>(query: T, later: string, earlier: string): T =>
  documented(query.superRefine(periodInOrder(earlier, later)), { json: { 'x-not-before': { [later]: earlier } } });

/**
 * Control characters (Unicode Cc: C0 including tab and line breaks, DEL, C1) have no place in a query or
 * path value: no id, date, flag, CPF or name search carries one (a NUL even ends backend-sim's FTS5 query).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it matches control characters to refuse them
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

export const CONTROL_CHARACTER_MESSAGE = 'Caracteres de controle nao sao aceitos.';

/** A name as it can be shown in an error: its control characters written as `\uXXXX`. */
const printable = (name: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: it matches control characters to escape them
  name.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The first parameter of a parsed query string or path (`{name: value | value[]}`) whose name or value
 * holds a control character, as it can be shown; null when there is none.
 */
export function fieldWithControlCharacter(values: unknown): string | null {
  if (values === null || typeof values !== 'object') return null;
  for (const [name, value] of Object.entries(values)) {
    const list: unknown[] = Array.isArray(value) ? value : [value];
    if (CONTROL_CHARACTER.test(name) || list.some((v) => typeof v === 'string' && CONTROL_CHARACTER.test(v)))
      return printable(name);
  }
  return null;
}

/** Query objects reject unknown parameters: a whitelist violation is a 400. */
export const queryObject = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape);

export const emptyQuery = z.strictObject({});

export function paginationMeta(limit: number, offset: number, total: number): Record<string, unknown> {
  return { limit, offset, total, has_more: offset + limit < total };
}
