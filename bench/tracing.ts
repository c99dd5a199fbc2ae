import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { load, log, signedHeaders, startServer, stopServer, TSX, type Measure, type Signer } from './harness.ts';

/**
 * Issue 31 § 2: the signed GET /v1/ping with tracing unset (nothing of OpenTelemetry loaded) beside the same with
 * tracing on, its spans batched and exported over OTLP/HTTP protobuf to a sink this process runs on loopback (it
 * answers 200 and counts; its CPU is not the server's). CPU per request counts the gateway's whole process tree,
 * the exporter included. `BENCH_ONLY=tracing npm run bench`.
 */
export interface TracingBench {
  unset: Measure;
  on: Measure;
  /** What the sink received during the run with tracing on. */
  exported: { requests: number; bytes: number };
}

async function startSink(): Promise<{ url: string; received: { requests: number; bytes: number }; close(): void }> {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      received.bytes += chunk.length;
    });
    req.on('end', () => {
      received.requests += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => server.close() };
}

async function pingRun(env: Record<string, string>): Promise<Measure> {
  const gw = await startServer(TSX, ['bench/gateway-server.ts'], env);
  try {
    const signer = gw.info as unknown as Signer;
    const ping = { method: 'GET' as const, path: '/v1/ping', headers: signedHeaders(signer, 'GET', '/v1/ping', '') };
    await load(gw, ping, 2); // warm-up: JIT, caches, connections
    return await load(gw, ping);
  } finally {
    await stopServer(gw);
  }
}

export async function measureTracing(): Promise<TracingBench> {
  const sink = await startSink();
  try {
    log('gateway, tracing unset…');
    // Explicitly empty: an OTEL_* variable of the shell running the bench must not turn it on.
    const unset = await pingRun({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' });
    log('gateway, tracing on (OTLP http/protobuf to a local sink)…');
    const on = await pingRun({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    return { unset, on, exported: { ...sink.received } };
  } finally {
    sink.close();
  }
}

export function tracingTable(t: TracingBench): string {
  const row = (name: string, m: Measure) =>
    `${name.padEnd(58)} ${String(Math.round(m.rps)).padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  ${Math.round(m.cpuUs)} µs CPU/request  (${m.non2xx} non-2xx)`;
  return [
    row('signed GET /v1/ping (tracing unset)', t.unset),
    row('signed GET /v1/ping (tracing on, OTLP protobuf to a local sink)', t.on),
    `tracing on costs ${Math.round(t.on.cpuUs - t.unset.cpuUs)} µs of server CPU per request; the sink received ${t.exported.requests} exports, ${Math.round(t.exported.bytes / 1024)} KiB`,
  ].join('\n');
}

export async function benchTracing(json: boolean, report?: Record<string, unknown>): Promise<void> {
  const tracing = await measureTracing();
  const view = {
    ping_tracing_unset_cpu_us_per_request: Math.round(tracing.unset.cpuUs),
    ping_tracing_on_cpu_us_per_request: Math.round(tracing.on.cpuUs),
    ping_tracing_unset_req_s: Math.round(tracing.unset.rps),
    ping_tracing_on_req_s: Math.round(tracing.on.rps),
    exported: tracing.exported,
  };
  if (report) report.tracing = view;
  if (!json) console.log(`\n${tracingTable(tracing)}`);
  else if (!report) console.log(JSON.stringify({ tracing: view }, null, 2));
}
