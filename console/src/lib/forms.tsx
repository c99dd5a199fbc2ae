import { useState, type FormEvent, type ReactNode } from 'react';
import type { z } from 'zod';
import { ApiError } from './api.ts';
import { issuesToFields } from './messages.ts';
import { Field } from './ui.tsx';
import { clinicOptionLabel, keyOptionLabel, type ClinicRef } from './vocabulary.tsx';

/** A choice in a Select: its value, its words, and a tooltip where the words are shortened. */
export interface Option {
  value: string | number;
  label: string;
  title?: string;
}

/**
 * A select of `options`. `blank` is the option before them (any, every clinic, none chosen yet) with its
 * value (`blankValue`, empty unless the API spells it, e.g. `*`). `onChange` gets the chosen value as text.
 */
export function Select({
  id,
  value,
  onChange,
  options,
  blank,
  blankValue = '',
  disabled,
}: {
  id: string;
  value: string | number;
  onChange: (value: string) => void;
  options: Option[] | undefined;
  blank?: string;
  blankValue?: string;
  disabled?: boolean;
}) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
      {blank !== undefined && <option value={blankValue}>{blank}</option>}
      {options?.map((o) => (
        <option key={o.value} value={o.value} title={o.title}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/** A Field holding one Select of the same id: `label`, `error` and `hint` are the field's, the rest the Select's. */
export function SelectField({
  label,
  error,
  hint,
  ...select
}: Parameters<typeof Select>[0] & { label: string; error?: string; hint?: ReactNode }) {
  return (
    <Field id={select.id} label={label} error={error} hint={hint}>
      <Select {...select} />
    </Field>
  );
}

/** Clinics as options, each as "name (slug)". */
export const clinicOptions = (clinics: ClinicRef[] | undefined): Option[] | undefined =>
  clinics?.map((c) => ({ value: c.slug, label: clinicOptionLabel(c) }));

/** The clinic picker of a page or dialog: a SelectField labelled "Clinic" whose options are `clinics`, by slug. */
export function ClinicSelectField({
  clinics,
  ...select
}: Omit<Parameters<typeof SelectField>[0], 'label' | 'options'> & { clinics: ClinicRef[] | undefined }) {
  return <SelectField label="Clinic" options={clinicOptions(clinics)} {...select} />;
}

/** API keys as options: `#12 LIS integration – production`, the whole label in the tooltip. */
export const keyOptions = (keys: Array<Parameters<typeof keyOptionLabel>[0]> | undefined): Option[] | undefined =>
  keys?.map((k) => ({ value: k.id, label: keyOptionLabel(k), title: k.label }));

/** Plain values (methods, units' codes) as options, each its own words unless `label` says otherwise. */
export const valueOptions = (
  values: readonly string[],
  label: (value: string) => string = (value) => value,
): Option[] => values.map((value) => ({ value, label: label(value) }));

/**
 * The field errors of a form sent with a mutation: the contract's schema checks it first (nothing is sent
 * while it refuses), then the server's VAL_INVALID_PARAM answer names its fields. Each message goes under
 * its field (`Field error={errors.name}`).
 */
export function useFieldErrors() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  /**
   * The input as the schema parses it, or null once its refusals are shown. A field refused twice shows
   * the last refusal: an object's own rule (a latency fault needs a latency) says more than the field's bound.
   */
  const check = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> | null => {
    const parsed = schema.safeParse(input);
    setErrors(parsed.success ? {} : issuesToFields([...parsed.error.issues].reverse()));
    return parsed.success ? parsed.data : null;
  };
  /** The mutation's `onError`: a refusal that names fields shows under them (the banner shows the rest). */
  const fromServer = (error: unknown) => {
    if (error instanceof ApiError) setErrors(error.fieldErrors());
  };
  /** A form's onSubmit: `input` checked by `schema`, then handed to `send` with `fromServer` as its onError. */
  const submit =
    <S extends z.ZodType>(
      schema: S,
      input: unknown,
      send: (data: z.output<S>, onError: (error: unknown) => void) => void,
    ) =>
    (event: FormEvent) => {
      event.preventDefault();
      const data = check(schema, input);
      if (data) send(data, fromServer);
    };
  return { errors, setErrors, check, fromServer, submit };
}
