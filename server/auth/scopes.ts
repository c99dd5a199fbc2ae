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
