import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestStack } from '../../helpers/stack.ts';
import { logicalDump, rawCall } from '../../helpers/snapshots.ts';
import type { ConsoleClient } from './console-client.ts';
import { productionStack } from './production-stack.ts';

// Issue 30 § 2, production: a restore or an import replaces a clinic's data, so APP_ENV=production refuses them
// (403 OPERATION_NOT_ALLOWED naming ALLOW_TENANT_RESET, the reset's rule) on the console and automation routes;
// saving, listing, exporting and deleting snapshots stay allowed (docs/decisions.md S3).
vi.setConfig({ testTimeout: 90_000 });

describe('APP_ENV=production without ALLOW_TENANT_RESET', () => {
  let stack: TestStack;
  let client: ConsoleClient;
  let token: string;
  beforeAll(async () => {
    ({ stack, client, token } = await productionStack({}));
  });
  afterAll(async () => stack?.stop());

  it('saves, lists and exports; refuses restore and import on both surfaces with nothing changed', async () => {
    const slug = stack.tenantSlug;
    const saved = await client.call('POST', `/admin/api/tenants/${slug}/snapshots`, { name: 'prod' });
    expect(saved.status).toBe(201);
    expect((await client.call('GET', `/admin/api/tenants/${slug}/snapshots`)).body.data).toHaveLength(1);
    const exported = await rawCall(`${stack.gatewayUrl}/admin/api/automation/tenants/${slug}/snapshots/prod/export`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(exported.status).toBe(200);
    const before = logicalDump(stack.dataDir, slug);

    const refusals = [
      await client.call('POST', `/admin/api/tenants/${slug}/snapshots/prod/restore`, {}),
      await (async () => {
        const r = await rawCall(`${stack.gatewayUrl}/admin/api/automation/tenants/${slug}/snapshots/prod/restore`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: Buffer.from('{}'),
        });
        return { status: r.status, body: r.json };
      })(),
      ...(await Promise.all(
        [
          { cookie: client.cookie!, 'x-csrf-token': client.csrf! } as Record<string, string>,
          { authorization: `Bearer ${token}` },
        ].map(async (headers: Record<string, string>, i: number) => {
          const r = await rawCall(
            `${stack.gatewayUrl}/admin/api${i ? '/automation' : ''}/tenants/nova-prod/snapshots/import`,
            { method: 'POST', headers, body: exported.bytes },
          );
          return { status: r.status, body: r.json };
        }),
      )),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'OPERATION_NOT_ALLOWED',
        details: { opt_in_variable: 'ALLOW_TENANT_RESET' },
      });
    }
    expect(logicalDump(stack.dataDir, slug)).toEqual(before);
    expect((await client.call('GET', '/admin/api/tenants')).body.data.map((t: any) => t.slug)).not.toContain(
      'nova-prod',
    );
  });
});

describe('APP_ENV=production with ALLOW_TENANT_RESET=true', () => {
  let stack: TestStack;
  let client: ConsoleClient;
  beforeAll(async () => {
    // The console API reads the opt-in from the environment at start (like the ADMIN_* settings).
    process.env.ALLOW_TENANT_RESET = 'true';
    try {
      ({ stack, client } = await productionStack({ ALLOW_TENANT_RESET: 'true' }));
    } finally {
      delete process.env.ALLOW_TENANT_RESET;
    }
  });
  afterAll(async () => stack?.stop());

  it('restores', async () => {
    const slug = stack.tenantSlug;
    expect((await client.call('POST', `/admin/api/tenants/${slug}/snapshots`, { name: 'prod' })).status).toBe(201);
    const res = await client.call('POST', `/admin/api/tenants/${slug}/snapshots/prod/restore`, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ slug, name: 'prod' });
  });
});
