import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackendSim, type RunningBackendSim } from '../../backend-sim/main.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';

const TOKEN = 'test-internal-token';

/** backend-sim alone, tracing on: its server span continues the caller's traceparent, its SQL spans hang under it. */
describe('backend-sim tracing', () => {
  let receiver: OtlpReceiver;
  let sim: RunningBackendSim;
  let dataDir: string;
  const traceId = '5b8efff798038103d269b633813fc60c';
  const parentId = 'eee19b7ec3c1b174';

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(sim.url + path, {
      method,
      headers: {
        'x-internal-token': TOKEN,
        'x-chave-id': '11',
        'x-medico-filtro-id': '0',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'backend-sim-tracing-'));
    sim = await startBackendSim({
      dataDir,
      internalToken: TOKEN,
      port: 0,
      tracing: { url: `${receiver.url}/v1/traces`, protocol: 'http/protobuf', serviceName: 'sim-under-test' },
    });
    expect((await call('POST', '/admin/tenants', { slug: 'rastro', nome: 'Rastro' })).status).toBeLessThan(300);
    const search = await call('GET', '/tenants/rastro/pacientes?nome=Segredo%20Nominal&limit=5', undefined, {
      traceparent: `00-${traceId}-${parentId}-01`,
    });
    expect(search.status).toBe(200);
    await sim.close();
  });

  afterAll(async () => {
    await receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('continues the incoming trace with a server span named by its route, SQL spans under it without bound values', () => {
    const trace = receiver.spans.filter((span) => span.traceId === traceId);
    const server = trace.find((span) => span.parentSpanId === parentId);
    expect(server).toMatchObject({
      service: 'sim-under-test',
      kind: SPAN_KIND.server,
      name: 'GET /tenants/:slug/pacientes',
    });
    expect(server!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/tenants/:slug/pacientes',
      'url.path': '/tenants/rastro/pacientes',
      'http.response.status_code': 200,
    });
    const statements = trace.filter((span) => span.parentSpanId === server!.spanId);
    expect(statements.length).toBeGreaterThan(0);
    for (const span of statements) {
      expect(span.attributes['db.system.name']).toBe('sqlite');
      expect(String(span.attributes['db.query.text'])).toMatch(/^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)/i);
    }
    expect(statements.some((span) => String(span.attributes['db.query.text']).includes('?'))).toBe(true);
    expect(JSON.stringify(receiver.spans)).not.toMatch(/segredo/i);
  });

  it('starts a trace of its own for a call without traceparent (the tenant creation)', () => {
    const create = receiver.spans.find((span) => span.name === 'POST /admin/tenants');
    expect(create).toBeDefined();
    expect(create!.parentSpanId).toBe('');
    expect(create!.traceId).not.toBe(traceId);
  });
});
