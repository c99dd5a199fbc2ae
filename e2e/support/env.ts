/** What global-setup.ts hands to the tests (through environment variables, which workers inherit). */
export interface E2eEnv {
  baseUrl: string;
  tenant: string;
  operator: string;
  password: string;
  lockUser: string;
  medicoId: number;
  medicoName: string;
  /** A key issued in setup, used to watch faults from the API side. */
  apiKey: string;
  apiSecret: string;
}

export function e2eEnv(): E2eEnv {
  const raw = process.env.E2E_STACK;
  if (!raw) throw new Error('E2E_STACK is not set: run through `npm run test:e2e` (global-setup starts the stack)');
  return JSON.parse(raw) as E2eEnv;
}
