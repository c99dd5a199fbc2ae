import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  catalogOption,
  medicoOption,
  tenantCreated,
  tenantResetResult,
  tenantSettingsView,
  tenantView,
  type CatalogOption,
  type CreateTenantInput,
  type TenantResetInput,
  type TenantResetResult,
  type TenantSettingsInput,
  type TenantSettingsView,
  type TenantView,
} from '../../../../contracts/admin/tenants.ts';
import {
  clonePolicyView,
  type cloneTenantSchema,
  tenantCloned,
  tenantDropped,
  type TenantCloned,
  type TenantDropped,
} from '../../../../contracts/admin/clones.ts';
import { api } from '../../lib/api.ts';

export type TenantRow = TenantView;
export type TenantSettings = TenantSettingsView;

/** A doctor, unit or insurer for the default pickers. */
export type PickerOption = CatalogOption & { papeis?: string[] };

const catalog = (slug: string, what: 'unidades' | 'convenios') =>
  useQuery({
    queryKey: ['tenant-catalog', slug, what],
    queryFn: () => api(z.array(catalogOption), 'GET', `/tenants/${encodeURIComponent(slug)}/${what}`),
    select: (rows): PickerOption[] => rows,
    staleTime: 60_000,
  });

export const useUnidades = (slug: string) => catalog(slug, 'unidades');
export const useConvenios = (slug: string) => catalog(slug, 'convenios');
export const useDoctors = (slug: string) =>
  useQuery({
    queryKey: ['tenant-catalog', slug, 'medicos'],
    queryFn: () => api(z.array(medicoOption), 'GET', `/tenants/${encodeURIComponent(slug)}/medicos`),
    select: (rows): PickerOption[] =>
      rows.map((m) => ({
        id: m.id,
        nome: m.nome,
        detalhe: [m.especialidade, m.conselho].filter(Boolean).join(' · '),
        ativo: m.ativo,
        papeis: m.papeis,
      })),
    staleTime: 60_000,
  });

export const useTenants = () =>
  useQuery({ queryKey: ['tenants'], queryFn: () => api(z.array(tenantView), 'GET', '/tenants') });

export const useTenantSettings = (slug: string) =>
  useQuery({
    queryKey: ['tenant-settings', slug],
    queryFn: () => api(tenantSettingsView, 'GET', `/tenants/${encodeURIComponent(slug)}/settings`),
  });

export function useSaveSettings(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: TenantSettingsInput) =>
      api(tenantSettingsView, 'PATCH', `/tenants/${encodeURIComponent(slug)}/settings`, input),
    onSuccess: (data) => {
      client.setQueryData(['tenant-settings', slug], data);
      void client.invalidateQueries({ queryKey: ['tenants'] });
    },
  });
}

export function useCreateTenant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateTenantInput) => api(tenantCreated, 'POST', '/tenants', input),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['tenants'] }),
  });
}

export type { TenantResetResult };

export function useResetTenant(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: TenantResetInput) =>
      api(tenantResetResult, 'POST', `/tenants/${encodeURIComponent(slug)}/reset`, input),
    // Settings and name are back to their first-start values; keys, audit and lists may have changed.
    onSuccess: () => void client.invalidateQueries(),
  });
}

/** Issue 30: whether this appliance clones and drops clinics, and its limits (fixed at start). */
export const useClonePolicy = () =>
  useQuery({
    queryKey: ['ephemeral-clinics-policy'],
    queryFn: () => api(clonePolicyView, 'GET', '/ephemeral-clinics-policy'),
    staleTime: Infinity,
  });

export type { TenantCloned, TenantDropped };

export function useCloneTenant(template: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: z.output<typeof cloneTenantSchema>) =>
      api(tenantCloned, 'POST', `/tenants/${encodeURIComponent(template)}/clone`, input),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['tenants'] }),
  });
}

export function useDropTenant(slug: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api(tenantDropped, 'DELETE', `/tenants/${encodeURIComponent(slug)}`, { confirm: slug }),
    onSuccess: () => void client.invalidateQueries(),
  });
}
