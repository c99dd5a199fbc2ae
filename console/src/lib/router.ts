import { useSyncExternalStore } from 'react';

/** A tiny hash router: `#/keys?tenant=demo`. Hash routing keeps the static server trivial. */
export interface Location {
  path: string;
  params: URLSearchParams;
}

function read(): Location {
  const hash = window.location.hash.replace(/^#/, '') || '/keys';
  const [path, query = ''] = hash.split('?', 2);
  return { path, params: new URLSearchParams(query) };
}

let current = read();
const subscribe = (onChange: () => void) => {
  const handler = () => {
    current = read();
    onChange();
  };
  window.addEventListener('hashchange', handler);
  return () => window.removeEventListener('hashchange', handler);
};

export function useLocation(): Location {
  return useSyncExternalStore(subscribe, () => current);
}

export function href(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const q = search.toString();
  return `#${path}${q ? `?${q}` : ''}`;
}

export function navigate(path: string, params: Record<string, string | number | undefined | null> = {}): void {
  window.location.hash = href(path, params);
}
