/** What a seed is asked for and what it answers (the public shapes of seed.ts). */

export type SeedProfile = 'rich' | 'synthetic';

export interface SeedProgress {
  phase: 'catalogos' | 'pacientes' | 'exames' | 'agendamentos' | 'prontuarios' | 'indices';
  done: number;
  total: number;
}

export interface SeedSettings {
  cpf_obrigatorio?: boolean;
  celular_obrigatorio?: boolean;
  solicitante_obrigatorio?: boolean;
  medico_laudo_obrigatorio?: boolean;
  /** Whether exam-create defaults (unit, doctors, insurer) are filled; default true. */
  defaults?: boolean;
}

export interface SeedOptions {
  dataDir: string;
  slug: string;
  seed: string | number;
  patients: number;
  exams: number;
  appointments: number;
  profile: SeedProfile;
  nome?: string;
  settings?: SeedSettings;
  /** Dates derive from this instant, never from the wall clock (default 2026-11-01T12:00:00Z). */
  referenceDate?: string;
  onProgress?: (p: SeedProgress) => void;
}

/** Doctor ids by role, so keys can be bound to doctors. */
export interface MedicoIds {
  exame: number[];
  laudo: number[];
  solicitante: number[];
}

export interface SeedResult {
  slug: string;
  /** Doctor ids by role, so keys can be bound to doctors. */
  medicos: MedicoIds;
  counts: { pacientes: number; exames: number; laudos: number; agendamentos: number; prontuarios: number };
  file: string;
}
