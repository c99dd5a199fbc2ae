import { afterAll, beforeAll, expect, test } from 'vitest';
import { fillPath, type Operation } from '../../../server/routes/operation.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { TenantFixtures } from '../../helpers/fixtures.ts';
import { OTHER_ID, seedOtherTenant } from '../../helpers/other-tenant.ts';
import type { Credentials } from '../../helpers/signed-client.ts';

/**
 * Issue 25 § 2 (docs/decisions.md HOP1): every /v1 read that forwards a list or a detail relays backend-sim's
 * stamped `data` unparsed, and answers exactly what parsing it would have answered. A clinic with a row of id
 * OTHER_ID in every table gives each read something to show.
 */
const SLUG = 'clinica-carimbo';
let stack: TestStack;
let creds: Credentials;
let reads: Array<{ op: Operation; target: string }>;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant(SLUG);
  const fixtures = new TenantFixtures(stack.dataDir, SLUG);
  seedOtherTenant(fixtures);
  fixtures.close();
  creds = await stack.newKey({ tenant: SLUG });
  reads = stack.app.operations
    .filter(({ operation }) => operation.method === 'GET' && operation.response.status === 200)
    .map(({ path, operation: op }) => {
      const filled = fillPath(
        path,
        Object.fromEntries([...path.matchAll(/:(\w+)/g)].map(([, name]) => [name, OTHER_ID])),
      );
      const query = new URLSearchParams(op.example?.query ?? {}).toString();
      return { op, target: query ? `${filled}?${query}` : filled };
    });
});
afterAll(async () => stack?.stop());

const label = (op: Operation) => `${op.method} ${op.url}`;
/** Reads that make no relayed call: ping calls nothing, config reads the clinic's settings and answers its own view. */
const NO_RELAYED_CALL = ['GET /config', 'GET /ping'];

test('every read of a list or a detail is relayed; the doctor detail (documents masked here) is parsed; ping and config make no relayed call', async () => {
  const relayed: string[] = [];
  const parsed: string[] = [];
  const neither: string[] = [];
  for (const { op, target } of reads) {
    const before = { ...stack.backend.relays };
    const res = await stack.call({ path: target }, creds);
    expect(res.status, `${label(op)}: ${res.text}`).toBe(200);
    const after = stack.backend.relays;
    if (after.relayed + after.verified > before.relayed + before.verified) relayed.push(label(op));
    else if (after.parsed > before.parsed) parsed.push(label(op));
    else neither.push(label(op));
  }
  expect(parsed).toEqual(['GET /medicos/:id']);
  expect(neither.sort()).toEqual(NO_RELAYED_CALL);
  expect(relayed.length).toBe(reads.length - 3);
  expect(stack.backend.contractViolations).toEqual([]);
});

test('a relayed answer is, byte for byte, the one the parsed path gives', async () => {
  const answers = async () => {
    const out = new Map<string, { data: string; meta: Record<string, unknown> }>();
    for (const { op, target } of reads.filter(({ op }) => !NO_RELAYED_CALL.includes(label(op)))) {
      const res = await stack.call({ path: target }, creds);
      expect(res.status, label(op)).toBe(200);
      const { request_id: _id, duracao_ms: _ms, timestamp: _at, ...meta } = res.body.meta;
      // Parsed by the test client, key order kept: equal texts mean equal fields, values and order.
      out.set(label(op), { data: JSON.stringify(res.body.data), meta });
    }
    // Lists with rows (the examples filter them out).
    for (const list of ['/pacientes', '/exames', '/laudos']) {
      const res = await stack.call({ path: `/v1${list}?limit=50` }, creds);
      const { request_id: _id, duracao_ms: _ms, ...meta } = res.body.meta;
      out.set(`GET ${list} (unfiltered)`, { data: JSON.stringify(res.body.data), meta });
    }
    return out;
  };
  const viaRelay = await answers();
  stack.backend.trustsStamps = false;
  try {
    const viaParse = await answers();
    expect(viaRelay).toEqual(viaParse);
  } finally {
    stack.backend.trustsStamps = true;
  }
  // The reads had rows to show: the clinic's patients, exam and report.
  expect(viaRelay.get('GET /pacientes (unfiltered)')!.data).toContain('OUTRA PACIENTE DOIS');
  expect(viaRelay.get('GET /pacientes/:id')!.data).toContain('OUTRA PACIENTE UM');
  expect(viaRelay.get('GET /exames (unfiltered)')!.data).toContain(`"id":${OTHER_ID}`);
  expect(viaRelay.get('GET /laudos/:id')!.data).toContain(`"id":${OTHER_ID}`);
});
