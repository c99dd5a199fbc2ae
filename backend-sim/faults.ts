import { FaultTable } from '../shared-node/fault-table.ts';
import { BackendError } from './errors.ts';
import {
  BACKEND_FAULT_KINDS as FAULT_KINDS,
  backendFaultInput as faultInputSchema,
  type BackendFaultInput as FaultInput,
  type BackendFaultKind as FaultKind,
} from '../contracts/backend/admin.ts';

/** The admin wire of faults is contracts/backend/admin.ts (the gateway's console routes call it). */
export { FAULT_KINDS, faultInputSchema, type FaultInput, type FaultKind };

export interface Fault {
  id: number;
  tenant: string;
  route: string;
  latency_ms: number;
  failure_rate: number;
  kind: FaultKind | null;
  criado_em: string;
  /** Requests this fault matched (latency and/or failure applied). */
  hits: number;
}

/**
 * Turns a route pattern into a regex over "METHOD /path".
 * - `/.../` (slashes around) or a `re:` prefix: a regular expression, used as is;
 * - otherwise a glob where `*` matches any run of characters (including `/`) and `?` one character.
 * A glob without a leading method matches every method.
 */
export function compileRoutePattern(pattern: string): RegExp {
  const trimmed = pattern.trim();
  if (trimmed.startsWith('re:')) return new RegExp(trimmed.slice(3));
  if (trimmed.length > 2 && trimmed.startsWith('/') && trimmed.endsWith('/') && !trimmed.includes(' ')) {
    const body = trimmed.slice(1, -1);
    if (/[\\^$()[\]|+{}]/.test(body)) return new RegExp(body);
  }
  const glob = (s: string) =>
    s
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
  const m = /^([A-Za-z*]+)\s+(.*)$/.exec(trimmed);
  const method = m ? (m[1] === '*' ? '[A-Z]+' : m[1].toUpperCase()) : '[A-Z]+';
  const path = m ? m[2] : trimmed;
  return new RegExp(`^${method} ${glob(path)}$`);
}

/** In-memory fault table: tests and the console switch faults on and off through the admin API. */
export class FaultStore {
  private readonly faults = new FaultTable<Fault & { regex: RegExp }>();

  add(input: FaultInput, now: string): Fault {
    let regex: RegExp;
    try {
      regex = compileRoutePattern(input.route);
    } catch {
      throw new BackendError('VAL_INVALID_PARAM', 'Padrao de rota invalido.', { field: 'route' });
    }
    if (!input.kind && !input.latency_ms)
      throw new BackendError('VAL_INVALID_PARAM', 'Informe kind ou latency_ms.', { field: 'kind' });
    const { regex: _regex, ...fault } = this.faults.add((id) => ({
      id,
      tenant: input.tenant ?? '*',
      route: input.route,
      latency_ms: input.latency_ms,
      failure_rate: input.failure_rate,
      kind: input.kind ?? null,
      criado_em: now,
      hits: 0,
      regex,
    }));
    return fault;
  }

  list(): Fault[] {
    return this.faults.all().map(({ regex: _regex, ...f }) => f);
  }

  remove(id: number): boolean {
    return this.faults.remove(id);
  }

  clear(): number {
    return this.faults.clear();
  }

  /** First matching fault for a tenant call; admin routes are never faulted so faults can always be removed. */
  match(method: string, path: string, tenant: string | null): (Fault & { regex: RegExp }) | undefined {
    const target = `${method} ${path}`;
    return this.faults.first(tenant, (f) => f.regex.test(target));
  }
}
