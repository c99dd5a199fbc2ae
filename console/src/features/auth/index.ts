export { AuthGate } from './AuthGate.tsx';
export type { Session } from './api.ts';
