import { useSyncExternalStore } from 'react';
import type { OperatorRole } from '../../../contracts/admin/operators.ts';

/*
 * The signed-in operator's role, for any screen to hide what a viewer may not do. Set by features/auth
 * when a session starts or ends (features do not import each other). Hiding is a courtesy: the console
 * API refuses a viewer's writes itself (403 ADMIN_FORBIDDEN, docs/console.md § Operator accounts).
 */
let current: OperatorRole | null = null;
const listeners = new Set<() => void>();

export function setConsoleRole(role: OperatorRole | null): void {
  if (role === current) return;
  current = role;
  for (const listener of listeners) listener();
}

export function useConsoleRole(): OperatorRole | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

/** True for an admin: the screens show their write actions. */
export const useCanWrite = (): boolean => useConsoleRole() === 'admin';
