import Fastify from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import {
  defineOperation,
  guardV1Routes,
  registerOperations,
  type Operation,
  type RegisteredOperation,
} from '../../../server/routes/operation.ts';
import { BackendClient } from '../../../server/backend/client.ts';
import { Presigner } from '../../../server/storage/presigner.ts';

/** The route platform refuses, at startup, a /v1 route that could be open to every key. */

const deps = {
  backend: new BackendClient('http://127.0.0.1:9', 'token-not-used-0123456789', 1000),
  presigner: new Presigner({
    endPoint: '127.0.0.1',
    port: 9,
    useSSL: false,
    accessKey: 'x',
    secretKey: 'y',
    bucket: 'b',
    region: 'us-east-1',
  }),
};

/** An app with the /v1 guard exactly as buildApp installs it, and `register` run inside the /v1 scope. */
async function appWith(
  register: (v1: import('fastify').FastifyInstance) => void,
): Promise<{ ready: Promise<unknown>; registry: RegisteredOperation[] }> {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  const registry: RegisteredOperation[] = [];
  await app.register(
    async (v1) => {
      guardV1Routes(v1, registry);
      register(v1);
    },
    { prefix: '/v1' },
  );
  return { ready: Promise.resolve(app.ready()).finally(() => app.close()), registry };
}

const ok = defineOperation({
  method: 'GET',
  url: '/coisas',
  summary: 'Lista coisas',
  tags: ['Teste'],
  scope: 'catalogos:read',
  response: { status: 200, data: z.array(z.object({ id: z.number() })) },
  handler: async () => [],
  errors: [],
});

describe('registration guard', () => {
  test('an operation with a scope registers and is enrolled', async () => {
    const { ready, registry } = await appWith((v1) => registerOperations(v1, [ok], deps)).catch((e) => ({
      ready: Promise.reject(e),
      registry: [],
    }));
    await expect(ready).resolves.toBeDefined();
    expect(registry.map((r) => `${r.operation.method} ${r.path}`)).toEqual(['GET /v1/coisas']);
  });

  test('an operation with neither a scope nor public: true fails at startup', async () => {
    const { scope: _dropped, ...withoutScope } = ok as Operation & { scope: string };
    await expect(appWith((v1) => registerOperations(v1, [withoutScope as unknown as Operation], deps))).rejects.toThrow(
      /needs a scope, or public: true/,
    );
  });

  test('an operation with both a scope and public: true fails at startup', async () => {
    const both = { ...ok, public: true } as unknown as Operation;
    await expect(appWith((v1) => registerOperations(v1, [both], deps))).rejects.toThrow(/not both/);
  });

  test('a plain Fastify route under /v1 (no operation definition, so no scope) fails at startup', async () => {
    await expect(appWith((v1) => v1.get('/aberta', async () => ({ aberta: true })))).rejects.toThrow(
      /must be registered as operations/,
    );
  });

  test('a scope smuggled in through route config without an operation still fails', async () => {
    await expect(
      appWith((v1) => v1.get('/quase', { config: { scope: 'catalogos:read' } }, async () => ({}))),
    ).rejects.toThrow(/must be registered as operations/);
  });
});
