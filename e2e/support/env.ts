/** What global-setup.ts hands to the tests (through environment variables, which workers inherit). */
export interface E2eEnv {
  baseUrl: string;
  /**
   * The clinic the tests work in (its slug): in a test, the worker's own clinic (a clone of `template`); in the
   * global setup's hand-over, the configured clinic (`E2E_TENANT`), used with `clinicPerWorker: false`.
   */
  tenant: string;
  /** The clinic each worker's clinic is cloned from: `E2E_TEMPLATE` (default `demo`); the own stack's `clinica-e2e`. */
  template: string;
  operator: string;
  password: string;
  /** True when the tests run against an appliance started elsewhere (`E2E_BASE_URL`): setup started nothing. */
  external?: boolean;
  /** Only on the stack global-setup starts: a second operator for the lockout test. */
  lockUser: string;
  medicoId: number;
  medicoName: string;
  /** A key of `tenant`, all scopes, no doctor: the kit's `api` client signs with it (the worker's clinic's, in a test). */
  apiKey: string;
  apiSecret: string;
  /** An operator API token for the automation routes (tenant reset); issued by the kit when absent. */
  operatorToken?: string;
}

export function e2eEnv(): E2eEnv {
  const raw = process.env.E2E_STACK;
  if (!raw)
    throw new Error(
      'E2E_STACK is not set: run through `npm run test:e2e` (global-setup starts the stack or reads E2E_BASE_URL)',
    );
  return JSON.parse(raw) as E2eEnv;
}
