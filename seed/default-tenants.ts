import type { SeedProfile, SeedSettings } from './types.ts';

/**
 * The clinics the first `npm start` creates: plain data, read by the seed (what to generate in each)
 * and by first-start bootstrap (what to register in the gateway, which keys to issue).
 */
export interface DefaultTenant {
  slug: string;
  /** The name the gateway registers; the seed writes the same one. */
  nome: string;
  /** The public sandbox (its demo key gets the sandbox scopes). */
  sandbox: boolean;
  /** What the first start generates in it. */
  seed: {
    profile: SeedProfile;
    seed: string;
    patients: number;
    exams: number;
    appointments: number;
    settings: SeedSettings;
  };
}

export const DEFAULT_TENANTS: readonly DefaultTenant[] = [
  {
    slug: 'demo',
    nome: 'Clinica Demo',
    sandbox: false,
    seed: { profile: 'rich', seed: 'demo-1', patients: 300, exams: 1500, appointments: 400, settings: {} },
  },
  {
    slug: 'sandbox',
    nome: 'Sandbox Publico',
    sandbox: true,
    seed: { profile: 'synthetic', seed: 'sandbox-1', patients: 100, exams: 400, appointments: 120, settings: {} },
  },
  {
    slug: 'clinica-b',
    nome: 'Clinica B',
    sandbox: false,
    seed: {
      profile: 'rich',
      seed: 'clinica-b-7',
      patients: 150,
      exams: 600,
      appointments: 150,
      settings: { cpf_obrigatorio: true, celular_obrigatorio: true, medico_laudo_obrigatorio: true },
    },
  },
];
