import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedTenant } from '../../../seed/seed.ts';
import type { Credentials } from '../../helpers/signed-client.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { DocumentOracle, FRESH_KEY, type RequestModel, type Sample } from './document-oracle.ts';

/**
 * Issue 21 § 1: the runtime and the document agree. For every documented operation, requests are generated
 * from the document's own schemas (valid ones and ones a step outside), classified by a JSON Schema
 * validator against /openapi.json, and sent signed to a running stack: what the document allows is never
 * refused with a 400/413, what it does not allow always is (400, or 413 over `x-max-body-bytes`), and every
 * answer matches the response the document declares for its status (body, required headers, `links`).
 *
 * `npm test` runs OPENAPI_AGREEMENT_RUNS (default 40) requests per operation; a larger run:
 * `OPENAPI_AGREEMENT_RUNS=1000 npx vitest run test/server/openapi/agreement.test.ts`
 * (OPENAPI_AGREEMENT_SEED replays a run, the seed is printed with every disagreement; OPENAPI_AGREEMENT_STATS=1 prints
 * the statuses answered per operation).
 */

const RUNS = Number(process.env.OPENAPI_AGREEMENT_RUNS ?? 40);
const SEED = Number(process.env.OPENAPI_AGREEMENT_SEED ?? Math.floor(Math.random() * 2 ** 31));

let stack: TestStack;
let oracle: DocumentOracle;
let dataDir: string;
/** A key of a small seeded clinic: generated ids (mostly 1-21) reach real records, so answers of every kind come back. */
let creds: Credentials;
/** Keys of the same clinic holding one scope each: a key without an operation's scope gets its documented 403. */
let narrow: { catalogos: Credentials; pacientes: Credentials };
const totals = { requests: 0, valid: 0, invalid: 0 };

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-openapi-agreement-'));
  await seedTenant({
    dataDir,
    slug: 'acordo',
    seed: 'openapi-agreement',
    profile: 'rich',
    patients: 30,
    exams: 60,
    appointments: 40,
  });
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: '100000000' }, { dataDir });
  await stack.createTenant('acordo');
  creds = await stack.newKey({ tenant: 'acordo' });
  narrow = {
    catalogos: await stack.newKey({ tenant: 'acordo', scopes: ['catalogos:read'] }),
    pacientes: await stack.newKey({ tenant: 'acordo', scopes: ['pacientes:read'] }),
  };
  const res = await stack.raw({ path: '/openapi.json' });
  oracle = new DocumentOracle(res.body);
  // What the document defers to for the tenant-dependent requirements (x-tenant-required).
  oracle.tenantDefaults = (await stack.call({ path: '/v1/config' }, creds)).body.data.defaults;
}, 120_000);

/** A 400 naming only fields the document says the clinic may require, each with the announced message. */
const announcedClinicRequirement = (body: any, fields: string[]): boolean =>
  body?.error?.code === 'VAL_INVALID_PARAM' &&
  Array.isArray(body.error.details?.lista) &&
  body.error.details.lista.every(
    (item: any) => fields.includes(item.field) && item.msg === 'Obrigatorio (sem default no tenant).',
  );
afterAll(async () => {
  console.log(
    `openapi agreement: ${totals.requests} requests (${totals.valid} valid, ${totals.invalid} invalid per the document), seed ${SEED}`,
  );
  try {
    await stack?.stop();
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
});

/** RFC 3986 unreserved characters only: what is signed is what the HTTP client sends (it would escape `'` itself). */
const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function target(model: RequestModel, sample: Sample): string {
  const path = model.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(sample.path[name]));
  const query = sample.query.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&');
  return query ? `${path}?${query}` : path;
}

// The document is fetched from the running stack; the operations are listed from the same routes.
const { V1_OPERATIONS } = await import('../../../server/routes/v1/index.ts');

describe('every documented operation: the server agrees with the document', () => {
  test('the document lists every registered operation', () => {
    const documented = oracle.requestModels().map((m) => m.label);
    expect(documented.length).toBe(V1_OPERATIONS.length);
  });

  for (const op of V1_OPERATIONS) {
    const label = `${op.method} /v1${op.url.replace(/:(\w+)/g, '{$1}')}`;
    test(
      `${label}: valid per the document → not refused; invalid → 400 VAL_INVALID_PARAM; answers as documented`,
      async () => {
        const model = oracle.requestModels().find((m) => m.label === label)!;
        expect(model, label).toBeDefined();
        const hasInputs = model.pathParams.length + model.queryParams.length > 0 || model.body !== undefined;
        const samples = fc.sample(oracle.samples(model), {
          numRuns: hasInputs ? RUNS : Math.ceil(RUNS / 4),
          seed: SEED,
        });
        const problems: string[] = [];
        let valid = 0;
        let invalid = 0;
        const statuses = new Map<number, number>();
        for (const sample of samples) {
          const verdict = oracle.classify(model, sample);
          const res = await stack.call(
            {
              method: model.method,
              path: target(model, sample),
              body: sample.body === undefined ? undefined : JSON.stringify(sample.body),
              idempotencyKey: sample.idempotencyKey === FRESH_KEY ? randomUUID() : (sample.idempotencyKey ?? undefined),
            },
            creds,
          );
          totals.requests++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const where = `${model.method} ${target(model, sample).slice(0, 160)} [${sample.intent}]`;
          if (verdict.valid) {
            valid++;
            if (
              (res.status === 400 || res.status === 413) &&
              !(res.status === 400 && announcedClinicRequirement(res.body, verdict.clinicMayRequire))
            ) {
              problems.push(
                `${where}: valid per the document, refused ${res.status} ${JSON.stringify(res.body?.error).slice(0, 300)}`,
              );
            }
          } else {
            invalid++;
            const expected = verdict.tooLarge ? 413 : 400;
            if (res.status !== expected || res.body?.error?.code !== 'VAL_INVALID_PARAM') {
              problems.push(
                `${where}: invalid per the document (${verdict.why.join(' | ').slice(0, 300)}), answered ${res.status} ${res.text.slice(0, 200)}`,
              );
            }
          }
          // Documented for every operation, but never what a request should get: a fault of the gateway.
          if (res.body?.error?.code === 'INTERNAL_ERROR') problems.push(`${where}: 500 INTERNAL_ERROR`);
          for (const problem of oracle.checkResponse(model, sample, res))
            problems.push(`${where}: answer ${res.status}: ${problem}`);
        }
        // The refusals every signed operation declares, answered as declared: no signature (401), a key without the scope (403).
        const first = samples[0];
        const unsigned = await stack.raw({ method: model.method, path: target(model, first) });
        expect(unsigned.status, `${label} unsigned`).toBe(401);
        expect(oracle.checkResponse(model, first, unsigned), `${label} unsigned`).toEqual([]);
        if (op.scope) {
          const other = op.scope === 'catalogos:read' ? narrow.pacientes : narrow.catalogos;
          // No body: the scope is checked before the body is read or validated.
          const refused = await stack.call({ method: model.method, path: target(model, first) }, other);
          expect(refused.status, `${label} without ${op.scope}`).toBe(403);
          expect(oracle.checkResponse(model, first, refused), `${label} without ${op.scope}`).toEqual([]);
        }
        if (process.env.OPENAPI_AGREEMENT_STATS) console.log(label, JSON.stringify(Object.fromEntries(statuses)));
        totals.valid += valid;
        totals.invalid += invalid;
        expect(problems.slice(0, 8), `${problems.length} disagreements (seed ${SEED})`).toEqual([]);
        expect(valid, 'valid samples').toBeGreaterThan(0);
        if (hasInputs) expect(invalid, 'invalid samples').toBeGreaterThan(0);
      },
      Math.max(30_000, RUNS * 300),
    );
  }
});
