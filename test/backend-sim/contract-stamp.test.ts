import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { z } from 'zod';
import { INTERNAL_HEADERS } from '../../contracts/backend/headers.ts';
import { pacienteDetailRead, pacienteListItem } from '../../contracts/schemas/pacientes.ts';
import { medicoDetail } from '../../contracts/schemas/medicos.ts';
import { itemRoute, listRoute } from '../../backend-sim/lib/http.ts';
import { contractOf } from '../../shared-node/contract-stamp.ts';
import { createTenant, startHarness, TOKEN, type Harness } from './helpers.ts';

/**
 * Issue 25 § 2 (docs/decisions.md HOP1): a read given its contract schema answers its `data` parsed by that
 * schema, written `meta` first, stamped with the schema's stamp in `x-contract-schema`; the gateway relays such
 * a `data` without parsing it. An answer its own schema refuses goes out unstamped, for the gateway to refuse.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await createTenant(h, 'demo');
  for (const nome of ['Paciente Carimbo Um', 'Paciente Carimbo Dois']) {
    expect((await h.call('POST', '/tenants/demo/pacientes', { nome, data_nascimento: '1980-01-02' })).status).toBe(201);
  }
});
afterAll(() => h?.close());

const raw = async (path: string) => {
  const res = await fetch(h.sim.url + path, {
    headers: { [INTERNAL_HEADERS.token]: TOKEN, 'x-chave-id': '11', 'x-medico-filtro-id': '0' },
  });
  return { status: res.status, stamp: res.headers.get(INTERNAL_HEADERS.contractSchema), text: await res.text() };
};

describe('reads of backend-sim', () => {
  it('a page of patients: parsed by the list schema, meta first, stamped with that schema', async () => {
    const page = await raw('/tenants/demo/pacientes?limit=50');
    expect(page.status).toBe(200);
    expect(page.stamp).toBe(contractOf(z.array(pacienteListItem))!.stamp);
    expect(page.text.startsWith('{"meta":{"total":2},"data":[')).toBe(true);
    const body = JSON.parse(page.text);
    // Exactly what the schema makes of it, keys in the schema's order.
    expect(JSON.stringify(body.data)).toBe(JSON.stringify(z.array(pacienteListItem).parse(body.data)));
    expect(body.data.map((p: { nome: string }) => p.nome)).toEqual(['PACIENTE CARIMBO UM', 'PACIENTE CARIMBO DOIS']);
  });

  it("a patient's detail: stamped with the detail schema", async () => {
    const detail = await raw('/tenants/demo/pacientes/1');
    expect(detail.status).toBe(200);
    expect(detail.stamp).toBe(contractOf(pacienteDetailRead)!.stamp);
    expect(JSON.parse(detail.text)).toEqual({ meta: {}, data: pacienteDetailRead.parse(JSON.parse(detail.text).data) });
  });

  it('an error is never stamped', async () => {
    const missing = await raw('/tenants/demo/pacientes/999999');
    expect(missing.status).toBe(404);
    expect(missing.stamp).toBeNull();
  });

  it("a schema that transforms (the doctor detail's masked documents) gets no stamp: the gateway applies it", async () => {
    expect(contractOf(medicoDetail)).toBeNull();
  });
});

describe('readRoute (backend-sim/lib/http.ts)', () => {
  const item = z.object({ id: z.number().int(), nome: z.string(), ativo: z.boolean() });
  const app = Fastify();
  let rows: unknown[] = [];
  app.get(
    '/lista',
    listRoute(z.object({}), async () => ({ data: rows, total: rows.length }), item),
  );
  app.get(
    '/item',
    itemRoute(async () => rows[0], item),
  );
  afterAll(() => app.close());

  it('keys outside the schema are stripped before the answer is stamped', async () => {
    rows = [{ id: 1, nome: 'UM', ativo: true, senha_hash: 'scrypt$segredo' }];
    const res = await app.inject({ method: 'GET', url: '/lista' });
    expect(res.headers[INTERNAL_HEADERS.contractSchema]).toBe(contractOf(z.array(item))!.stamp);
    expect(res.body).toBe('{"meta":{"total":1},"data":[{"id":1,"nome":"UM","ativo":true}]}');
    const one = await app.inject({ method: 'GET', url: '/item' });
    expect(one.headers[INTERNAL_HEADERS.contractSchema]).toBe(contractOf(item)!.stamp);
    expect(one.body).toBe('{"meta":{},"data":{"id":1,"nome":"UM","ativo":true}}');
  });

  it('an answer its own schema refuses goes out as it is, unstamped (the gateway parses and refuses it)', async () => {
    rows = [{ id: 1, nome: null, ativo: 'sim', senha_hash: 'x' }];
    const res = await app.inject({ method: 'GET', url: '/lista' });
    expect(res.statusCode).toBe(200);
    expect(res.headers[INTERNAL_HEADERS.contractSchema]).toBeUndefined();
    // Not coerced by the serializer into something that would pass (null → "", "sim" → true).
    expect(JSON.parse(res.body)).toEqual({ data: rows, meta: { total: 1 } });
  });
});
