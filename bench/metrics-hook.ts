import { GatewayMetrics } from '../server/metrics/gateway-metrics.ts';
import { V1_OPERATIONS } from '../server/routes/v1/index.ts';

// `npx tsx bench/metrics-hook.ts`: the CPU the metrics hook adds to each answer (server/metrics, issue 31), measured
// alone: the series lookup, the request counter, the latency histogram. The signed ping's whole CPU per request is
// the `signed GET /v1/ping` row of `BENCH_ONLY=ping npm run bench`; on a loaded machine that row moves far more than this.
const metrics = new GatewayMetrics();
const ping = V1_OPERATIONS.find((operation) => operation.method === 'GET' && operation.url === '/ping');
if (!ping) throw new Error('GET /v1/ping is not an operation');
const N = 2_000_000;
for (let round = 0; round < 5; round++) {
  const started = process.cpuUsage();
  for (let i = 0; i < N; i++) metrics.answered(metrics.seriesOf(ping), 200, 0.0012, null, false);
  const used = process.cpuUsage(started);
  console.log(
    `round ${round + 1}: ${(((used.user + used.system) * 1000) / N).toFixed(0)} ns of CPU per counted answer`,
  );
}
