/** Every scope of the spec's Scopes table, in its order. */
export const ALL_SCOPES = [
  'pacientes:read',
  'pacientes:write',
  'exames:read',
  'exames:write',
  'exames:delete',
  'laudos:read',
  'laudos:write',
  'agenda:read',
  'agenda:write',
  'prontuarios:read',
  'prontuarios:write',
  'catalogos:read',
  'medicos:write',
] as const;

export type Scope = (typeof ALL_SCOPES)[number];

export const READ_ONLY_SCOPES: Scope[] = ALL_SCOPES.filter((s) => s.endsWith(':read'));

/**
 * The sandbox key: every GET, POST /v1/ping and the three agenda POSTs (spec § Sandbox).
 * Patient, exam and report writes are not enabled there.
 */
export const SANDBOX_SCOPES: Scope[] = [...READ_ONLY_SCOPES, 'agenda:write'];

export const SCOPE_PRESETS: Record<string, Scope[]> = {
  all: [...ALL_SCOPES],
  full: [...ALL_SCOPES],
  'read-only': READ_ONLY_SCOPES,
  sandbox: SANDBOX_SCOPES,
};

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** One line per scope, from the spec's Scopes table (console picker, OpenAPI). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'pacientes:read': 'list/detail patients',
  'pacientes:write': 'create, partial update, unify patients',
  'exames:read': 'list/detail exams, exam file redirect',
  'exames:write': 'create exam (does not allow deletion)',
  'exames:delete': 'delete exam (dedicated scope)',
  'laudos:read': 'list/detail reports, report file redirect',
  'laudos:write': 'ingest signed report',
  'agenda:read': 'appointments, slots, agenda configs',
  'agenda:write': 'create, cancel, reschedule appointments',
  'prontuarios:read': 'list patient records, attachment metadata, attachment URL',
  'prontuarios:write': 'create patient record',
  'catalogos:read': 'catalogs and doctor detail',
  'medicos:write': 'create and partially update doctors',
};
