import { expect } from 'vitest';
import { startTestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';
import { ConsoleClient } from './console-client.ts';

const PASSWORD = 'correct-horse-battery';

/** A stack in production mode, an operator signed in, an all-clinics operator token. */
export async function productionStack(env: Record<string, string>) {
  const stack = await startTestStack({ APP_ENV: 'production', ...env });
  await ensureOperator(stack.gatewayDb.db, 'operador', PASSWORD);
  const client = new ConsoleClient(stack.gatewayUrl);
  expect((await client.login('operador', PASSWORD)).status).toBe(200);
  const issued = await client.call('POST', '/admin/api/operator-tokens', { label: 'ci', tenants: '*' });
  expect(issued.status).toBe(201);
  return { stack, client, token: issued.body.data.token as string };
}
