import { expect, test } from './kit/index.ts';

// Issue 31 § 2: the journal keeps the trace id of a call, and the console's entry detail shows it. The e2e appliance
// runs with tracing off, so this is the incoming `traceparent`'s trace id (with tracing on it is the request span's,
// the same trace: test/server/tracing/tracing.test.ts).
test('audit entry detail: the trace id of a call that sent a traceparent, a dash for one that did not', async ({
  api,
  appliance,
  operatorPage: page,
}) => {
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const traced = await api.get('/v1/pacientes?limit=1', {
    headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
  });
  expect(traced.status).toBe(200);
  const untraced = await api.get('/v1/pacientes?limit=1');
  expect(untraced.status).toBe(200);

  for (const [res, shown] of [
    [traced, traceId],
    [untraced, '—'],
  ] as const) {
    const requestId = res.json.meta.request_id as string;
    await page.goto(`${appliance.baseUrl}/console/#/audit?request_id=${requestId}`);
    const row = page.locator(`tr[data-request-id="${requestId}"]`);
    await expect(row).toBeVisible();
    await row.getByRole('link').click();
    await expect(page.getByTestId('detail-request-id')).toHaveText(requestId);
    await expect(page.getByTestId('detail-trace-id')).toContainText(shown);
  }
});
