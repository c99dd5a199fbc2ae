import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';
import type { CreateTenantInput, TenantSettingsInput } from '../../../../server/admin/schemas.ts';
import type { TenantResetInput } from '../../../../server/admin/reset-schemas.ts';
import type { TenantResetResult } from '../../../../server/admin/reset-schemas.ts';

export interface TenantRow {
  id: number;
  slug: string;
  nome: string;
  sandbox: boolean;
  status: string;
  created_at: string;
  chaves_ativas: number;
}

export interface TenantSettings {
  nome: string;
  cpf_obrigatorio: boolean;
  celular_obrigatorio: boolean;
  solicitante_obrigatorio: boolean;
  medico_laudo_obrigatorio: boolean;
  central_laudos_disponivel: boolean;
  defaults: { unidade_id: number | null; medico_exame_id: number | null; medico_laudo_id: number | null; convenio_id: number | null };
}

/** server/admin/routes/tenants.ts: a doctor, unit or insurer for the default pickers. */
export interface PickerOption {
  id: number;
  nome: string;
  detalhe: string;
  ativo: boolean;
  papeis?: string[];
}

interface MedicoRow {
  id: number;
  nome: string;
  especialidade: string;
  conselho: string;
  papeis: string[];
  ativo: boolean;
}

const catalog = (slug: string, what: 'unidades' | 'convenios') =>
  useQuery({
    queryKey: ['tenant-catalog', slug, what],
    queryFn: () => api<PickerOption[]>('GET', `/tenants/${encodeURIComponent(slug)}/${what}`),
    staleTime: 60_000,
  });

export const useUnidades = (slug: string) => catalog(slug, 'unidades');
export const useConvenios = (slug: string) => catalog(slug, 'convenios');
export const useDoctors = (slug: string) =>
  useQuery({
    queryKey: ['tenant-catalog', slug, 'medicos'],
    queryFn: () => api<MedicoRow[]>('GET', `/tenants/${encodeURIComponent(slug)}/medicos`),
    select: (rows): PickerOption[] =>
      rows.map((m) => ({ id: m.id, nome: m.nome, detalhe: [m.especialidade, m.conselho].filter(Boolean).join(' · '), ativo: m.ativo, papeis: m.papeis })),
    staleTime: 60_000,
  });

export const useTenants = () => useQuery({ queryKey: ['tenants'], queryFn: () => api<TenantRow[]>('GET', '/tenants') });

export const useTenantSettings = (slug: string) =>
  useQuery({ queryKey: ['tenant-settings', slug], queryFn: () => api<TenantSettings>('GET', `/tenants/${encodeURIComponent(slug)}/settings`) });

export function useSaveSettings(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: TenantSettingsInput) => api<TenantSettings>('PATCH', `/tenants/${encodeURIComponent(slug)}/settings`, input),
    onSuccess: (data) => {
      client.setQueryData(['tenant-settings', slug], data);
      void client.invalidateQueries({ queryKey: ['tenants'] });
    },
  });
}

export function useCreateTenant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateTenantInput) => api<{ slug: string }>('POST', '/tenants', input),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['tenants'] }),
  });
}


export type { TenantResetResult };

export function useResetTenant(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: TenantResetInput) => api<TenantResetResult>('POST', `/tenants/${encodeURIComponent(slug)}/reset`, input),
    // Settings and name are back to their first-start values; keys, audit and lists may have changed.
    onSuccess: () => void client.invalidateQueries(),
  });
}
