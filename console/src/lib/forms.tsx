import { useState } from 'react';
import type { z } from 'zod';
import { ApiError } from './api.ts';
import { issuesToFields } from './messages.ts';
import { clinicOptionLabel, type ClinicRef } from './vocabulary.tsx';

/**
 * A select of clinics, each as "name (slug)". `blank` is the option before them (every clinic, or none
 * chosen yet) with its value (`blankValue`, empty unless the API spells it, e.g. `*`).
 */
export function ClinicSelect({
  id,
  value,
  onChange,
  clinics,
  blank,
  blankValue = '',
  disabled,
}: {
  id: string;
  value: string;
  onChange: (slug: string) => void;
  clinics: ClinicRef[] | undefined;
  blank?: string;
  blankValue?: string;
  disabled?: boolean;
}) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
      {blank !== undefined && <option value={blankValue}>{blank}</option>}
      {clinics?.map((t) => (
        <option key={t.slug} value={t.slug}>
          {clinicOptionLabel(t)}
        </option>
      ))}
    </select>
  );
}

/**
 * The field errors of a form sent with a mutation: the contract's schema checks it first (nothing is sent
 * while it refuses), then the server's VAL_INVALID_PARAM answer names its fields. Each message goes under
 * its field (`Field error={errors.name}`).
 */
export function useFieldErrors() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  /** The input as the schema parses it, or null once its refusals are shown. */
  const check = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> | null => {
    const parsed = schema.safeParse(input);
    setErrors(parsed.success ? {} : issuesToFields(parsed.error.issues));
    return parsed.success ? parsed.data : null;
  };
  /** The mutation's `onError`: a refusal that names fields shows under them (the banner shows the rest). */
  const fromServer = (error: unknown) => {
    if (error instanceof ApiError) setErrors(error.fieldErrors());
  };
  return { errors, setErrors, check, fromServer };
}
