import { BackendError } from '../errors.ts';
import { isValidCpf } from '../lib/cpf.ts';

/** "" and null both mean "no value" on the wire; a number is kept as its text. */
export const blank = (v: string | number | null | undefined): string | null =>
  v === undefined || v === null || String(v).trim() === '' ? null : String(v).trim();

/** Whether a PATCH body names the field (present, even if null: null clears it). */
export const has = <T extends object>(input: T, k: keyof T): boolean => Object.hasOwn(input, k);

export function checkCpf(cpf: string | null): void {
  if (cpf && !isValidCpf(cpf)) throw new BackendError('VAL_BACKEND', 'CPF invalido.', { field: 'cpf' });
}
