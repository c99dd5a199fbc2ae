import { z } from 'zod';
import { cepField, closedObject, numeroEndereco, positiveInt, resettable, text, ufField } from './fields.ts';
import { documented, trimmedLength } from './wire.ts';

/** A person's record, patient or doctor: the fields both write and show alike. */

/** The name: 5 to 100 characters once trimmed; `description` replaces the document's wording of that rule. */
export const nomePessoa = (description?: string) =>
  documented(
    z
      .string('Obrigatorio: texto de 5 a 100 caracteres.')
      .transform((v) => v.trim())
      .pipe(z.string().min(5, 'Deve ter de 5 a 100 caracteres.').max(100, 'Deve ter de 5 a 100 caracteres.')),
    { replace: description ? { ...trimmedLength(5, 100), description } : trimmedLength(5, 100) },
  );

/** The address a write sends (every field resettable); `extra` (a doctor's city by name) comes before the city's id. */
export const enderecoInputWith = <E extends z.ZodRawShape>(extra: E) =>
  closedObject(
    {
      cep: resettable(cepField),
      logradouro: text(150),
      numero: resettable(numeroEndereco),
      complemento: text(100),
      bairro: text(100),
      ...extra,
      cidade_id: positiveInt.nullable().optional(),
      estado: resettable(ufField),
    },
    'endereco',
  );

/** A text a detail shows as null when the record has none. */
export const nullableText = z.string().nullable();

/** The address as a detail shows it (a field not filled in: ''). */
export const enderecoView = z.object({
  cep: z.string(),
  logradouro: z.string(),
  numero: z.string(),
  complemento: z.string(),
  bairro: z.string(),
  cidade: z.string(),
  cidade_id: z.number().int().nullable(),
  estado: z.string(),
});
