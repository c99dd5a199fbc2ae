import { z } from 'zod';
import { anyCase, DATE_JSON, documented } from './wire.ts';

/**
 * Field validators shared by the patient and doctor bodies: the gateway-side format checks
 * (the 400s). Semantic rules (uniqueness, tenant-required fields, references) stay in the backend.
 */

/** CPF check digits (mod 11). Repeated-digit CPFs pass the arithmetic but are never issued. */
export function isValidCpf(cpf: string): boolean {
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const digits = cpf.split('').map(Number);
  const dv = (count: number): number => {
    let sum = 0;
    for (let i = 0; i < count; i++) sum += digits[i] * (count + 1 - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return dv(9) === digits[9] && dv(10) === digits[10];
}

/** 11 digits with valid check digits. */
export const cpfField = documented(
  z
    .string()
    .regex(/^\d{11}$/, { message: 'CPF deve ter exatamente 11 digitos, sem pontuacao.', abort: true })
    .refine(isValidCpf, 'CPF com digito verificador invalido.'),
  {
    json: {
      format: 'cpf',
      description: 'CPF: 11 digitos sem pontuacao, digitos verificadores validos (modulo 11), nao todos iguais.',
    },
  },
);

/** Free text with a maximum length; `null` and `""` reset. */
export const text = (max: number) => z.string().max(max, `Deve ter no maximo ${max} caracteres.`).nullable().optional();

/** A strict JSON integer > 0 (a string of digits is refused). */
export const positiveInt = z
  .number('Deve ser um inteiro positivo.')
  .int('Deve ser um inteiro positivo.')
  .positive('Deve ser um inteiro positivo.')
  .max(Number.MAX_SAFE_INTEGER);

/** `YYYY-MM-DD` of a UTC date. */
const isoDay = (d: Date): string => d.toISOString().slice(0, 10);

/** Birth dates: a real calendar date between 130 years ago and today (UTC), both inclusive. */
export function birthDateBounds(now: Date = new Date()): { min: string; max: string } {
  const min = new Date(now.getTime());
  min.setUTCFullYear(min.getUTCFullYear() - 130);
  return { min: isoDay(min), max: isoDay(now) };
}

/** `x-date-range` of birth dates: relative to the day of the request (UTC), so the document stays the same every day. */
export const BIRTH_DATE_RANGE = { minimum: 'today-130y', maximum: 'today' } as const;

export const birthDate = documented(
  z
    .string('Data no formato YYYY-MM-DD.')
    // `abort`: one message per field in the consolidated lista, the first rule that fails.
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Data no formato YYYY-MM-DD.', abort: true })
    .refine(
      (value) => {
        const d = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(d.getTime()) && isoDay(d) === value;
      },
      { message: 'Data inexistente.', abort: true },
    )
    .superRefine((value, ctx) => {
      const { min, max } = birthDateBounds();
      if (value < min || value > max) {
        ctx.addIssue({ code: 'custom', message: `Data de nascimento deve estar entre ${min} e ${max}.` });
      }
    }),
  {
    json: {
      ...DATE_JSON,
      'x-date-range': BIRTH_DATE_RANGE,
      description: 'Data YYYY-MM-DD entre 130 anos atras e hoje (UTC), inclusive (`x-date-range`).',
    },
  },
);

export const emailField = documented(
  z.string().max(254, 'Deve ter no maximo 254 caracteres.').pipe(z.email('E-mail invalido.')),
  {
    replace: { type: 'string', format: 'email', maxLength: 254, pattern: z.regexes.email.source },
  },
);

/** Portal / system login: 1-50 chars of `A-Z a-z 0-9 . _ - @`. */
export const usuarioField = z
  .string()
  .min(1, 'Deve ter de 1 a 50 caracteres.')
  .max(50, 'Deve ter de 1 a 50 caracteres.')
  .regex(/^[A-Za-z0-9._@-]+$/, 'Use apenas letras sem acento, digitos e . _ - @');
export const USUARIO_JSON = { type: 'string', minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9._@-]+$' };

/** Write-only password: 1-50 chars, no format rule. */
export const SENHA_JSON = {
  type: 'string',
  minLength: 1,
  maxLength: 50,
  writeOnly: true,
  description: 'So escrita: nunca devolvida.',
};
export const senhaField = documented(
  z.string().min(1, 'Deve ter de 1 a 50 caracteres.').max(50, 'Deve ter de 1 a 50 caracteres.'),
  { json: SENHA_JSON },
);

export const SEXO_INPUT = ['MAS', 'FEM', 'OUT'] as const;
export const sexoField = z.enum(SEXO_INPUT, `Valor aceito: ${SEXO_INPUT.join(', ')}.`);

export const UFS = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
] as const;
/** Brazilian state: two letters, any case, forwarded upper case. */
export const ufField = documented(
  z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(UFS, 'UF invalida (sigla de 2 letras de um estado brasileiro).')),
  {
    replace: {
      type: 'string',
      pattern: `^${anyCase(UFS)}$`,
      description: `Sigla de um estado brasileiro, em qualquer caixa: ${UFS.join(', ')}.`,
    },
  },
);

/** CEP: 8 digits, with or without the hyphen; forwarded as 8 digits. */
export const cepField = z
  .string()
  .regex(/^\d{5}-?\d{3}$/, 'CEP deve ter 8 digitos (00000-000 ou 00000000).')
  .transform((v) => v.replace('-', ''));

/** House number: text or a JSON number (kept as text). */
export const numeroEndereco = z.union([
  z.string().max(10, 'Deve ter no maximo 10 caracteres.'),
  z.number().int().nonnegative().transform(String),
]);

/** Drops the named keys from a plain object before validation (the spec's "silently discarded" fields). */
export function dropKeys(keys: readonly string[]) {
  const set = new Set(keys);
  return (value: unknown): unknown => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([k]) => !set.has(k)));
  };
}

/**
 * Optional field that also accepts `null` or `""`, both meaning "no value" on create and
 * "reset" in a merge patch; forwarded as null. The inner schema's own message is kept.
 */
export const resettable = <T extends z.ZodType>(schema: T) =>
  documented(
    z.preprocess((v) => (v === '' ? null : v), schema.nullable()),
    { emptyMeansNull: true },
  ).optional();

const rejectUnknown = documented(
  z.unknown().superRefine((_value, ctx) => {
    ctx.addIssue({ code: 'custom', message: 'Campo nao aceito neste endpoint.' });
  }),
  { refuses: true },
);

/**
 * A JSON object that refuses fields it does not name. Each unknown field is its own issue with the
 * field's path, so `details.field` / `lista[]` name it, in the same pass as the other field errors.
 */
export function closedObject<T extends z.ZodRawShape>(shape: T, what = 'O corpo') {
  return z
    .object(shape, {
      error: (issue) => (issue.code === 'invalid_type' ? `${what} deve ser um objeto JSON.` : undefined),
    })
    .catchall(rejectUnknown);
}
