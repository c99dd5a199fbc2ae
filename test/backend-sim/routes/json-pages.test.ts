import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Fastify, { type FastifyInstance, type RouteShorthandOptionsWithHandler } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDatabase } from '../../../backend-sim/db/database.ts';
import { JsonPage } from '../../../backend-sim/db/json-page.ts';
import { createTenantDatabase } from '../../../backend-sim/tenants.ts';
import { INTERNAL_HEADERS } from '../../../contracts/backend/headers.ts';
import { LIST_PAGES } from './json-pages.lists.ts';

/**
 * Decision L32-1: every list whose page SQLite writes as JSON answers, byte for byte, what its rows answer
 * through its view, the contract schema and the compiled serializer (the path it replaced), stamped alike:
 * over rows with NULLs, any Unicode (accents, emoji, RTL, U+2028/2029, control characters, quotes,
 * backslashes, text that is JSON), integers up to the largest safe one, 0/1 booleans, dates, empty pages and
 * the last page. A row outside the contract (an integer past 2^53, text in an integer column) gets no stamp on
 * either path. Real SQLite files, no mocks: the rows are inserted in the tenant's own tables.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
let dataDir: string;
let tenant: TenantDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'json-pages-'));
  tenant = await createTenantDatabase(dataDir, 'paginas');
  app = Fastify();
  app.decorateRequest('tenant', null as unknown as TenantDatabase);
  app.addHook('onRequest', (req, _reply, done) => {
    (req as unknown as { tenant: TenantDatabase }).tenant = tenant;
    done();
  });
  for (const list of LIST_PAGES) {
    app.get(`/json/${list.name}`, list.route('json') as RouteShorthandOptionsWithHandler);
    app.get(`/rows/${list.name}`, list.route('rows') as RouteShorthandOptionsWithHandler);
  }
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await tenant?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const headers = { 'x-chave-id': '11', 'x-medico-filtro-id': '0' };
async function both(name: string, query: string) {
  const [json, rows] = await Promise.all(
    ['json', 'rows'].map((path) => app.inject({ method: 'GET', url: `/${path}/${name}?${query}`, headers })),
  );
  return { json, rows };
}

describe.each(LIST_PAGES.map((l) => [l.name, l] as const))('the page of %s written by SQLite', (name, list) => {
  it('answers byte for byte what its rows answer through the view and the compiled serializer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(list.row, { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        async (rows, limit) => {
          list.fill(tenant.sqlite, rows);
          const count = list.count(tenant.sqlite);
          // Every page, the last one and one past the end.
          for (let offset = 0; offset <= count + limit; offset += limit) {
            const query = { ...list.query, limit: String(limit), offset: String(offset) };
            // The rows are all inside the contract: SQLite writes the page.
            expect((await list.json(tenant.db, query)).data).toBeInstanceOf(JsonPage);
            const { json, rows: expected } = await both(name, new URLSearchParams(query).toString());
            expect(json.statusCode, json.body).toBe(200);
            expect(expected.statusCode).toBe(200);
            expect(json.body).toBe(expected.body);
            expect(json.headers[INTERNAL_HEADERS.contractSchema]).toBeDefined();
            expect(json.headers[INTERNAL_HEADERS.contractSchema]).toBe(
              expected.headers[INTERNAL_HEADERS.contractSchema],
            );
            expect(json.headers['content-type']).toBe(expected.headers['content-type']);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a row outside the contract: no stamp, the same answer as its rows', async () => {
    for (const bad of list.outside) {
      list.fill(tenant.sqlite, [bad]);
      const query = { ...list.query, limit: '10', offset: '0' };
      expect((await list.json(tenant.db, query)).data).not.toBeInstanceOf(JsonPage);
      const { json, rows } = await both(name, new URLSearchParams(query).toString());
      expect(rows.headers[INTERNAL_HEADERS.contractSchema]).toBeUndefined();
      expect(json.headers[INTERNAL_HEADERS.contractSchema]).toBeUndefined();
      expect(json.body).toBe(rows.body);
    }
  });
});
