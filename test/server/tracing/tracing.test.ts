import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.ts';

/**
 * Issue 31 § 2: real signed calls through a whole stack exporting to an OTLP/HTTP receiver this test starts, over
 * both protocols; the spans are read once the stack has closed (closing flushes both services' providers), so no
 * assertion waits on a timer.
 */

const traceparentFor = (traceId: string, parentId: string) => `00-${traceId}-${parentId}-01`;
const hexId = (bytes: number) => randomBytes(bytes).toString('hex');

async function journalTraceId(stack: TestStack, requestId: string): Promise<string | null | undefined> {
  await stack.app.auditWriter.flush();
  const row = await stack.database.db
    .selectFrom('audit_log')
    .select('trace_id')
    .where('request_id', '=', requestId)
    .executeTakeFirst();
  return row?.trace_id;
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId);
const only = (spans: ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(predicate);
  expect(found, JSON.stringify(spans.map((s) => `${s.service} ${s.name}`))).toHaveLength(1);
  return found[0];
};

for (const protocol of ['http/protobuf', 'http/json'] as const) {
  // The JSON run starts backend-sim in its own child process (npm start's way): the settings reach it over IPC.
  const backendSim = protocol === 'http/json' ? 'process' : 'in-process';
  describe(`tracing over OTLP ${protocol} (backend-sim ${backendSim})`, () => {
    let receiver: OtlpReceiver;
    let stack: TestStack;
    const incomingTrace = hexId(16);
    const incomingParent = hexId(8);
    const readTrace = hexId(16);
    const service = protocol === 'http/json' ? 'acme-gateway' : 'clinic-gateway';
    const backendService = protocol === 'http/json' ? 'acme-gateway-backend-sim' : 'clinic-backend-sim';
    const requestIds: Record<string, string> = {};
    const journaled: Record<string, string | null | undefined> = {};

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      stack = await startTestStack(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          ...(protocol === 'http/json' ? { OTEL_SERVICE_NAME: service } : {}),
        },
        { backendSim },
      );
      const write = await stack.call({
        method: 'POST',
        path: '/v1/pacientes',
        body: { nome: 'Paciente Rastreado', data_nascimento: '1990-01-01', sexo: 'FEM' },
        idempotencyKey: randomUUID(),
        headers: { traceparent: traceparentFor(incomingTrace, incomingParent) },
      });
      expect(write.status).toBe(201);
      requestIds.write = write.body.meta.request_id;
      const read = await stack.call({
        path: '/v1/pacientes?limit=5&nome=Paciente%20Rastreado',
        headers: { traceparent: traceparentFor(readTrace, hexId(8)) },
      });
      expect(read.status).toBe(200);
      requestIds.read = read.body.meta.request_id;
      const fresh = await stack.call({ path: '/v1/ping' });
      expect(fresh.status).toBe(200);
      requestIds.fresh = fresh.body.meta.request_id;
      for (const [name, id] of Object.entries(requestIds)) journaled[name] = await journalTraceId(stack, id);
      await stack.stop();
    });

    afterAll(async () => {
      await receiver?.close();
    });

    it(`exports in ${protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'}, each service under its service.name`, () => {
      expect(receiver.contentTypes.length).toBeGreaterThan(0);
      for (const type of receiver.contentTypes)
        expect(type).toMatch(protocol === 'http/json' ? /^application\/json/ : /^application\/x-protobuf/);
      expect(new Set(receiver.spans.map((span) => span.service))).toEqual(new Set([service, backendService]));
    });

    it('keeps the incoming trace id on every span of the gateway and backend-sim, each span under its parent', () => {
      const trace = receiver.spans.filter((span) => span.traceId === incomingTrace);
      const request = only(trace, (span) => span.name === 'postPacientes');
      expect(request).toMatchObject({ service, kind: SPAN_KIND.server, parentSpanId: incomingParent });
      expect(request.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/v1/pacientes',
        'url.path': '/v1/pacientes',
        'http.response.status_code': 201,
        'clinic.tenant_slug': stack.tenantSlug,
        'gateway.chave_id': stack.creds.chaveId,
        'gateway.request_id': requestIds.write,
      });
      const steps = childrenOf(trace, request);
      expect(steps.map((span) => span.name).sort()).toEqual(
        ['auth.key', 'auth.signature', 'backend POST', 'idempotency.reserve', 'journal.commit'].sort(),
      );
      const client = only(steps, (span) => span.name === 'backend POST');
      expect(client).toMatchObject({ service, kind: SPAN_KIND.client });
      expect(client.attributes).toMatchObject({
        'http.request.method': 'POST',
        'url.path': `/tenants/${stack.tenantSlug}/pacientes`,
        'http.response.status_code': 201,
      });
      const server = only(trace, (span) => span.parentSpanId === client.spanId);
      expect(server).toMatchObject({
        service: backendService,
        kind: SPAN_KIND.server,
        name: 'POST /tenants/:slug/pacientes',
      });
      const statements = childrenOf(trace, server);
      const insert = only(statements, (span) =>
        /^INSERT INTO pacientes /.test(String(span.attributes['db.query.text'])),
      );
      // Placeholders where the values were bound.
      expect(insert.attributes['db.query.text']).toContain('SELECT n.id, ?, ?, ?');
      expect(insert).toMatchObject({ name: 'INSERT', kind: SPAN_KIND.internal, service: backendService });
      expect(insert.attributes['db.system.name']).toBe('sqlite');
      // Every span of the trace is one of these: nothing started a trace of its own.
      expect(trace.length).toBe(1 + steps.length + 1 + statements.length);
    });

    it('never puts a bound value or the query string in a span', () => {
      const text = JSON.stringify(receiver.spans);
      expect(text).not.toMatch(/rastreado/i);
      expect(text).not.toContain('1990-01-01');
      expect(text).not.toContain('nome=');
      const read = only(receiver.spans, (span) => span.traceId === readTrace && span.name === 'getPacientes');
      expect(read.attributes['url.path']).toBe('/v1/pacientes');
      const statements = receiver.spans.filter(
        (span) => span.traceId === readTrace && span.attributes['db.query.text'],
      );
      expect(statements.length).toBeGreaterThan(0);
    });

    it('starts a new trace for a call without traceparent, backend-sim spans included', () => {
      const ping = only(receiver.spans, (span) => span.name === 'getPing');
      expect(ping.parentSpanId).toBe('');
      expect(ping.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect([incomingTrace, readTrace]).not.toContain(ping.traceId);
      expect(journaled.fresh).toBe(ping.traceId);
    });

    it('journals the trace id of each request', () => {
      expect(journaled.write).toBe(incomingTrace);
      expect(journaled.read).toBe(readTrace);
    });
  });
}
