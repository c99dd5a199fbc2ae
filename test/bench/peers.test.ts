import { describe, expect, test } from 'vitest';
import { KEPT_HEADERS, mappingFileName, wireMockMapping, type RecordedExchange } from '../../bench/peers/mappings.ts';
import { combineRounds, evaluatePeerTargets, PEER_TARGETS } from '../../bench/peers/targets.ts';
import type { Measure } from '../../bench/harness.ts';

// `npm run bench:peers` (bench/peers.ts): the pure parts, the WireMock stubs recorded from the appliance and the
// evaluation of issue 32's targets against the peers. The bench run itself (WireMock on Java, Prism from npm) is
// the proof of the rest; it is not part of the suite (it installs from the registry and takes minutes).

const listBody = JSON.stringify({
  data: [{ id: 1, nome: 'Paciente Lista 0', email: 'lista0@example.com' }],
  meta: { request_id: 'ab12', next_cursor: 'c1' },
  error: null,
});

const recordedList: RecordedExchange = {
  method: 'GET',
  url: '/v1/pacientes?limit=50',
  status: 200,
  headers: {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'ab12',
    'x-ratelimit-remaining': '99999999',
    'content-length': String(Buffer.byteLength(listBody)),
    date: 'Wed, 02 Dec 2026 19:00:00 GMT',
  },
  body: listBody,
};

describe('a WireMock mapping from an exchange recorded with the appliance', () => {
  test('a GET matches method and path with its query, and answers the recorded status, content type and body', () => {
    const mapping = wireMockMapping(recordedList);
    expect(mapping).toEqual({
      name: 'GET /v1/pacientes?limit=50 (recorded from the appliance)',
      request: { method: 'GET', url: '/v1/pacientes?limit=50' },
      response: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: listBody },
    });
    // The body is the appliance's bytes, not a re-serialization of them.
    expect(Buffer.byteLength(mapping.response.body)).toBe(Buffer.byteLength(listBody));
    // WireMock reads the mapping as JSON: what it would load is what was built.
    expect(JSON.parse(JSON.stringify(mapping))).toEqual(mapping);
  });

  test('only the headers worth keeping survive, whatever their case', () => {
    const mapping = wireMockMapping({
      ...recordedList,
      headers: { 'Content-Type': 'application/json', 'X-Api-Release': '1.6.0', 'Idempotency-Replay': 'false' },
    });
    expect(mapping.response.headers).toEqual({ 'content-type': 'application/json' });
    expect(KEPT_HEADERS).toEqual(['content-type']);
  });

  test('a create matches method and url only (every body and key) and answers the recorded 201', () => {
    const created = JSON.stringify({ data: { id: 301, nome: 'Paciente Peers 1a2b' }, meta: {}, error: null });
    const mapping = wireMockMapping({
      method: 'POST',
      url: '/v1/pacientes',
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8', location: '/v1/pacientes/301' },
      body: created,
    });
    expect(mapping.request).toEqual({ method: 'POST', url: '/v1/pacientes' });
    expect(Object.keys(mapping.request)).not.toContain('bodyPatterns');
    expect(Object.keys(mapping.request)).not.toContain('headers');
    expect(mapping.response).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: created,
    });
  });

  test('file names are distinct per method and url', () => {
    expect(mappingFileName(recordedList)).toBe('get-v1-pacientes-limit-50.json');
    expect(mappingFileName({ method: 'POST', url: '/v1/pacientes' })).toBe('post-v1-pacientes.json');
    expect(mappingFileName({ method: 'GET', url: '/v1/pacientes' })).not.toBe(
      mappingFileName({ method: 'POST', url: '/v1/pacientes' }),
    );
  });
});

describe("issue 32's targets against WireMock", () => {
  test('the list must cost at most WireMock’s CPU, the create at most 3× it, on each database', () => {
    expect(PEER_TARGETS.map((t) => [t.operation, t.appliance, t.peer, t.maxRatio])).toEqual([
      ['list', 'appliance', 'wiremock', 1],
      ['create', 'appliance', 'wiremock', 3],
      ['list', 'appliance-postgres', 'wiremock', 1],
      ['create', 'appliance-postgres', 'wiremock', 3],
    ]);
    const [list, create] = evaluatePeerTargets({
      list: { appliance: 965, wiremock: 282, prism: 1105 },
      create: { appliance: 258, wiremock: 86, prism: 1149 },
    });
    expect(list).toMatchObject({
      operation: 'list',
      appliance_cpu_us: 965,
      peer_cpu_us: 282,
      max_ratio: 1,
      met: false,
    });
    expect(list.ratio).toBeCloseTo(965 / 282, 10);
    expect(list.times_over).toBeCloseTo(965 / 282, 10);
    // Exactly 3× is met (≤).
    expect(create).toMatchObject({ operation: 'create', ratio: 3, met: true, times_over: 1 });
  });

  test('a target under its ratio is met; Prism’s figures never enter a WireMock target', () => {
    const [list, create] = evaluatePeerTargets({
      list: { appliance: 250, wiremock: 282, prism: 10 },
      create: { appliance: 300, wiremock: 86, prism: 1 },
    });
    expect(list.met).toBe(true);
    expect(list.ratio).toBeCloseTo(250 / 282, 10);
    expect(create.met).toBe(false);
    expect(create.times_over).toBeCloseTo(300 / 86 / 3, 10);
  });

  test('the PostgreSQL targets read the appliance on PostgreSQL, the gateway.db ones the appliance on gateway.db', () => {
    const results = evaluatePeerTargets({
      list: { appliance: 600, 'appliance-postgres': 1200, wiremock: 300 },
      create: { appliance: 900, 'appliance-postgres': 2700, wiremock: 100 },
    });
    expect(results.map((r) => [r.appliance, r.operation, r.ratio, r.met])).toEqual([
      ['appliance', 'list', 2, false],
      ['appliance', 'create', 9, false],
      ['appliance-postgres', 'list', 4, false],
      ['appliance-postgres', 'create', 27, false],
    ]);
    expect(results[2].target).toMatch(/PostgreSQL/);
    expect(results[0].target).toMatch(/gateway\.db/);
  });

  test('a peer not measured (skipped) leaves its target unevaluated, not met nor failed', () => {
    const [list, create] = evaluatePeerTargets({ list: { appliance: 900, prism: 1100 }, create: { appliance: 1000 } });
    expect(list).toMatchObject({ peer_cpu_us: null, ratio: null, met: null, times_over: null });
    expect(create).toMatchObject({ peer_cpu_us: null, ratio: null, met: null });
  });
});

describe('rounds combined into one row', () => {
  const m = (rps: number, cpuUs: number, requests: number, non2xx = 0): Measure => ({
    rps,
    p50: rps / 1000,
    p99: rps / 100,
    non2xx,
    requests,
    cpuUs,
  });

  test('CPU per request weighs each round by its requests; req/s and latencies are the rounds’ mean', () => {
    const combined = combineRounds([m(1000, 100, 4000, 2), m(3000, 300, 12000, 1)]);
    expect(combined.requests).toBe(16000);
    expect(combined.non2xx).toBe(3);
    expect(combined.cpuUs).toBeCloseTo((100 * 4000 + 300 * 12000) / 16000, 10);
    expect(combined.rps).toBe(2000);
    expect(combined.p50).toBe(2);
    expect(combined.p99).toBe(20);
  });

  test('no rounds is an error, not a row of zeros', () => {
    expect(() => combineRounds([])).toThrow(/no rounds/);
  });
});
