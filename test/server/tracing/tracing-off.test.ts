import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { openTelemetryLoaded } from '../../../shared-node/otel.ts';
import { entryBytes } from '../../../server/audit/bounded.ts';
import { harEntry } from '../../../server/audit/har.ts';
import { toReceivedEntry } from '../../../server/audit/journal-received.ts';
import { startOtlpReceiver } from '../../helpers/otlp-receiver.ts';

/** Issue 31 § 2: with no OTLP endpoint nothing of OpenTelemetry is loaded, yet a caller's trace id is journaled. */
describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function journaled(traceparent: string | undefined): Promise<string | null | undefined> {
    const res = await stack.call({ path: '/v1/pacientes?limit=1', headers: traceparent ? { traceparent } : {} });
    expect(res.status).toBe(200);
    await stack.app.auditWriter.flush();
    const row = await stack.database.db
      .selectFrom('audit_log')
      .select('trace_id')
      .where('request_id', '=', res.body.meta.request_id)
      .executeTakeFirst();
    return row?.trace_id;
  }

  it('journals the trace id of a valid incoming traceparent, null without one or for an invalid one', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(await journaled(`00-${traceId}-00f067aa0ba902b7-01`)).toBe(traceId);
    expect(await journaled(undefined)).toBeNull();
    for (const invalid of [
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      `00-${traceId.toUpperCase()}-00f067aa0ba902b7-01`,
      `ff-${traceId}-00f067aa0ba902b7-01`,
      `00-${traceId}-00f067aa0ba902b7-01-extra`,
      'nonsense',
    ])
      expect(await journaled(invalid), invalid).toBeNull();
  });

  it("counts the trace id in the entry's weight against AUDIT_MAX_BYTES; the HAR export carries it", async () => {
    const traceId = 'a3ce929d0e0e47364bf92f3577b34da6';
    const res = await stack.call({
      path: '/v1/pacientes?limit=1',
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    await stack.app.auditWriter.flush();
    const row = await stack.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('request_id', '=', res.body.meta.request_id)
      .executeTakeFirstOrThrow();
    expect(row.trace_id).toBe(traceId);
    expect(row.bytes).toBe(entryBytes(row));
    expect(entryBytes(row) - entryBytes({ ...row, trace_id: null })).toBe(32);
    const entry = toReceivedEntry(row as unknown as Parameters<typeof toReceivedEntry>[0]);
    expect(entry.trace_id).toBe(traceId);
    expect(harEntry(entry, stack.gatewayUrl)._traceId).toBe(traceId);
  });

  it('has loaded no OpenTelemetry module', async () => {
    expect(stack.config.tracing).toBeNull();
    expect(openTelemetryLoaded()).toBe(false);
    const required = Object.keys(createRequire(import.meta.url).cache);
    // prom-client's default CPU metric requires @opentelemetry/api for exemplars (a no-op without an SDK); no
    // SDK, exporter, resource or transformer package may load.
    const loaded = required.filter((file) => file.includes('@opentelemetry'));
    expect(loaded.filter((file) => !/[\\/]@opentelemetry[\\/]api[\\/]/.test(file))).toEqual([]);
  });
});

describe('OTEL_SDK_DISABLED=true beside an endpoint', () => {
  it('exports nothing and loads nothing', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const stack = await startTestStack({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' });
      try {
        expect(stack.config.tracing).toBeNull();
        const res = await stack.call({ path: '/v1/pacientes?limit=1' });
        expect(res.status).toBe(200);
      } finally {
        await stack.stop();
      }
      expect(receiver.contentTypes).toEqual([]);
      expect(openTelemetryLoaded()).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

describe('where OpenTelemetry may be imported', () => {
  it('only shared-node/otel-runtime.ts imports it (loaded by the dynamic import of startTracing)', () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const importers: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!['node_modules', 'dist', '.cache'].includes(entry.name)) walk(file);
        } else if (/\.(ts|tsx|mts|mjs|js)$/.test(entry.name)) {
          if (/from '@opentelemetry\/|import\('@opentelemetry\//.test(readFileSync(path.join(root, file), 'utf8')))
            importers.push(file);
        }
      }
    };
    for (const dir of ['contracts', 'shared-node', 'server', 'backend-sim', 'appliance', 'console/src']) walk(dir);
    expect(importers).toEqual(['shared-node/otel-runtime.ts']);
  });
});
