import { afterAll, beforeAll, expect, test } from 'vitest';
import { FakeBackend, injectApp, type InjectApp } from '../inject/app.ts';
import { Scrape } from '../../helpers/prometheus.ts';

// Each buildApp has its own registry (issue 31 § 1: each gateway of a cluster exposes its own numbers; the tests
// build many apps in one process). The process's default metrics are one set, shown by every app.
let first: InjectApp;
let second: InjectApp;
beforeAll(async () => {
  first = await injectApp(new FakeBackend());
  second = await injectApp(new FakeBackend());
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

const pings = (scrape: Scrape) => scrape.value('gateway_http_requests_total', { operation: 'getPing', status: '200' });

test('two gateways in one process count their own requests only', async () => {
  for (let i = 0; i < 3; i++) expect((await first.request({ path: '/v1/ping' })).status).toBe(200);
  expect((await second.request({ path: '/v1/ping' })).status).toBe(200);
  const a = new Scrape(await first.app.metrics.scrape());
  const b = new Scrape(await second.app.metrics.scrape());
  expect(pings(a)).toBe(3);
  expect(pings(b)).toBe(1);
  expect(first.app.metrics.registry).not.toBe(second.app.metrics.registry);
  // The process's metrics appear once in each scrape, not once per app built.
  for (const scrape of [a, b]) expect(scrape.text.match(/^# TYPE process_cpu_seconds_total /gm)).toHaveLength(1);
});

test("another part's gauge on app.metrics.registry is in that gateway's scrape only", async () => {
  const { Gauge } = await import('prom-client');
  new Gauge({
    name: 'gateway_test_gauge',
    help: 'a gauge registered as slice D registers its alert gauges',
    registers: [first.app.metrics.registry],
    collect() {
      this.set(7);
    },
  });
  expect(new Scrape(await first.app.metrics.scrape()).value('gateway_test_gauge')).toBe(7);
  expect(new Scrape(await second.app.metrics.scrape()).has('gateway_test_gauge')).toBe(false);
});
