import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compileRoutePattern } from '../../backend-sim/faults.ts';
import { createTenant, startHarness, TOKEN, type Harness } from './helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await createTenant(h, 'demo');
  await createTenant(h, 'outra');
});
afterAll(() => h.close());
afterEach(async () => {
  await h.call('DELETE', '/admin/faults');
});

const rawGet = (path: string, signal?: AbortSignal) =>
  request(`${h.sim.url}${path}`, { headers: { 'x-internal-token': TOKEN }, signal });

describe('route patterns', () => {
  it('globs match method and path', () => {
    const re = compileRoutePattern('GET /tenants/*/pacientes*');
    expect(re.test('GET /tenants/demo/pacientes')).toBe(true);
    expect(re.test('GET /tenants/demo/pacientes/3')).toBe(true);
    expect(re.test('POST /tenants/demo/pacientes')).toBe(false);
    expect(re.test('GET /tenants/demo/exames')).toBe(false);
  });
  it('a pattern without method matches any method; re: is a regex', () => {
    expect(compileRoutePattern('/tenants/demo/*').test('PATCH /tenants/demo/pacientes/1')).toBe(true);
    expect(compileRoutePattern('re:^POST /tenants/[a-z]+/exames$').test('POST /tenants/demo/exames')).toBe(true);
    expect(compileRoutePattern('re:^POST /tenants/[a-z]+/exames$').test('GET /tenants/demo/exames')).toBe(false);
  });
});

describe('fault admin API', () => {
  it('adds, lists and deletes faults', async () => {
    const a = await h.call('POST', '/admin/faults', { route: 'GET /tenants/*/pacientes*', kind: 'http500' });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ id: expect.any(Number), tenant: '*', failure_rate: 1, kind: 'http500' });
    await h.call('POST', '/admin/faults', { route: '*', latency_ms: 5 });
    expect((await h.call('GET', '/admin/faults')).body.meta.total).toBe(2);
    expect((await h.call('DELETE', `/admin/faults/${a.body.data.id}`)).status).toBe(200);
    expect((await h.call('DELETE', `/admin/faults/${a.body.data.id}`)).status).toBe(404);
    expect((await h.call('DELETE', '/admin/faults')).body.data.removidas).toBe(1);
  });
  it('rejects an unknown kind and a fault doing nothing', async () => {
    expect((await h.call('POST', '/admin/faults', { route: '*', kind: 'explode' })).status).toBe(400);
    expect((await h.call('POST', '/admin/faults', { route: '*' })).status).toBe(400);
  });
});

describe('fault kinds', () => {
  it('http500 answers 500 only on the matching tenant and route', async () => {
    await h.call('POST', '/admin/faults', { tenant: 'demo', route: 'GET /tenants/*/pacientes*', kind: 'http500' });
    expect((await h.call('GET', '/tenants/demo/pacientes')).status).toBe(500);
    expect((await h.call('GET', '/tenants/outra/pacientes')).status).toBe(200);
    expect((await h.call('GET', '/tenants/demo/procedimentos')).status).toBe(200);
    // Admin routes are never faulted.
    expect((await h.call('GET', '/admin/faults')).status).toBe(200);
  });

  it('failure_rate 0 never fails', async () => {
    const set = await h.call('POST', '/admin/faults', { route: '*', kind: 'http500', failure_rate: 0 });
    // The fault is in force (a refused one would make the loop below pass for nothing).
    expect(set.status).toBe(201);
    expect(set.body.data).toMatchObject({ route: '*', kind: 'http500', failure_rate: 0 });
    const listed = await h.call('GET', '/admin/faults');
    expect(listed.body.data).toEqual([expect.objectContaining({ id: set.body.data.id, failure_rate: 0 })]);
    for (let i = 0; i < 5; i++) expect((await h.call('GET', '/tenants/demo/pacientes')).status).toBe(200);
  });

  it('latency delays the answer', async () => {
    await h.call('POST', '/admin/faults', { route: 'GET /tenants/demo/*', latency_ms: 300 });
    const t0 = Date.now();
    expect((await h.call('GET', '/tenants/demo/pacientes')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('invalid_json answers 200 with a body that does not parse', async () => {
    await h.call('POST', '/admin/faults', { route: '*', kind: 'invalid_json' });
    const res = await rawGet('/tenants/demo/pacientes');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const text = await res.body.text();
    expect(() => JSON.parse(text)).toThrow();
  });

  it('drop destroys the connection', async () => {
    await h.call('POST', '/admin/faults', { route: '*', kind: 'drop' });
    await expect(rawGet('/tenants/demo/pacientes')).rejects.toThrow();
  });

  it('hang never answers until the client gives up', async () => {
    await h.call('POST', '/admin/faults', { route: '*', kind: 'hang' });
    const controller = new AbortController();
    const pending = rawGet('/tenants/demo/pacientes', controller.signal);
    const outcome = await Promise.race([
      pending.then(
        () => 'answered',
        () => 'failed',
      ),
      new Promise((r) => setTimeout(() => r('still waiting'), 500)),
    ]);
    expect(outcome).toBe('still waiting');
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The server keeps serving other requests once the fault is gone.
    await h.call('DELETE', '/admin/faults');
    expect((await h.call('GET', '/tenants/demo/pacientes')).status).toBe(200);
  });
});
