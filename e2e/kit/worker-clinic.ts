import type { E2eEnv } from '../support/env.ts';
import type { ConsoleApi } from './admin.ts';

/** A worker's own clinic: a clone of the template (its first-start state) with a key of its own, all scopes. */
export interface WorkerClinic {
  slug: string;
  template: string;
  apiKey: string;
  apiSecret: string;
  chaveId: number;
  expiresAt: string | null;
}

interface CloneAnswer {
  slug: string;
  template: string;
  api_key: string;
  api_secret: string;
  chave_id: number;
  expires_at: string | null;
}

/** How long a clone outlives a worker that crashed before dropping it (E2E_CLONE_TTL, e.g. `90s`, `30m`, `2h`). */
const cloneTtl = () => process.env.E2E_CLONE_TTL || '2h';

/** `<template>-w<parallel index>-<6 hex>`: which worker made it, at a glance; unique across runs (≤ 40 characters). */
function cloneSlug(template: string, parallelIndex: number): string {
  const suffix = `-w${parallelIndex}-${Math.random().toString(16).slice(2, 8).padEnd(6, '0')}`;
  return `${template.slice(0, 40 - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** Automation routes with the operator token; the console API with the kit's session otherwise. */
async function adminCall<T>(
  env: E2eEnv,
  consoleApi: ConsoleApi,
  method: 'POST' | 'DELETE',
  path: string,
  body?: unknown,
) {
  if (!env.operatorToken) return consoleApi.call<T>(method, path, body);
  const res = await fetch(`${env.baseUrl}/admin/api/automation${path}`, {
    method,
    headers: {
      authorization: `Bearer ${env.operatorToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => null)) as { data: T; error?: unknown } | null;
  if (!res.ok)
    throw new Error(`${method} /admin/api/automation${path} → ${res.status} ${JSON.stringify(json?.error ?? json)}`);
  return (json as { data: T }).data;
}

export async function newWorkerClinic(
  env: E2eEnv,
  consoleApi: ConsoleApi,
  parallelIndex: number,
): Promise<WorkerClinic> {
  const template = env.template;
  const clone = await adminCall<CloneAnswer>(env, consoleApi, 'POST', `/tenants/${template}/clone`, {
    slug: cloneSlug(template, parallelIndex),
    ttl: cloneTtl(),
  }).catch((error: Error) => {
    throw new Error(
      `the worker's clinic (a clone of ${template}) could not be made: ${error.message}. Set E2E_TEMPLATE to a clinic of the appliance, or use { clinicPerWorker: false }`,
    );
  });
  return {
    slug: clone.slug,
    template,
    apiKey: clone.api_key,
    apiSecret: clone.api_secret,
    chaveId: clone.chave_id,
    expiresAt: clone.expires_at,
  };
}

/** Drops the clone (its data, files and keys; its journal stays). Already gone (expired, dropped by hand) is fine. */
export async function dropWorkerClinic(env: E2eEnv, consoleApi: ConsoleApi, slug: string): Promise<void> {
  await adminCall(env, consoleApi, 'DELETE', `/tenants/${slug}`).catch((error: Error) => {
    if (!/→ 404/.test(error.message)) throw error;
  });
}
