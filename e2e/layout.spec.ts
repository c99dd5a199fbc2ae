import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { ConsoleApi, expect, SignedClient, test, type E2eEnv } from './kit/index.ts';

// Writes patients: start from the e2e clinic's first-start settings (another spec may have made CPF required).
test.use({ resetBeforeEach: true });

const SCREENSHOTS = process.env.E2E_SCREENSHOTS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');
/** Issue 22 § 1: a wide desktop and a 1024×768 laptop or tablet. */
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

/** `E2E_SCREENSHOTS=1` writes docs/screenshots/screen-<screen>-<width>.png (README and docs/console.md link them). */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Everything on the page that does not hold, as sentences:
 * - the page scrolls sideways, or a main table is wider than its box;
 * - a short word (letters and digits, up to 24: "Active", "auth", "login", "EXPIRED") is laid out on two
 *   lines — a badge, a code, a button, a heading or a cell broke inside a word;
 * - a select does not show its chosen option whole (its text is wider than the select's text area);
 * - a button, heading, label or badge is wider than its own box, or a control sticks out of its card or
 *   the window.
 */
async function problems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const describe = (el: Element) => {
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      return `<${el.tagName.toLowerCase()}${id}${cls}> "${text}"`;
    };
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return false;
      const style = getComputedStyle(el);
      return style.visibility !== 'hidden' && style.display !== 'none';
    };

    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
    const main = document.querySelector('main');
    if (!main) return ['no <main>'];
    main.querySelectorAll('table').forEach((table, i) => {
      const box = (table.closest('.table-wrap') as HTMLElement | null) ?? table.parentElement!;
      const label = table.closest('[aria-label]')?.getAttribute('aria-label') ?? `table ${i + 1}`;
      if (box.scrollWidth > box.clientWidth + 1) out.push(`${label}: table ${box.scrollWidth} px wide in a ${box.clientWidth} px box`);
    });

    // Words broken across lines, everywhere in the document (menu included).
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const broken = new Set<string>();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('.sr-only, option, script, style, textarea, [hidden]') || !visible(parent)) continue;
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/[\p{L}\p{N}]+/gu)) {
        // Hashes, keys and ids (25 characters and more) may wrap inside a narrow card; words may not.
        if (match[0].length < 2 || match[0].length > 24) continue;
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.add(`"${match[0]}" breaks across lines in ${describe(parent)}`);
      }
    }
    out.push(...broken);

    // Selects: the chosen option's text must fit the select (the arrow takes about 20 px of it).
    const canvas = document.createElement('canvas').getContext('2d')!;
    document.querySelectorAll('select').forEach((select) => {
      if (!visible(select)) return;
      const style = getComputedStyle(select);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = select.selectedOptions[0]?.textContent ?? '';
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      const needed = canvas.measureText(text).width;
      if (needed > room + 1) out.push(`select ${select.id ? `#${select.id}` : ''} cuts "${text}" (${Math.round(needed)} px of text, ${Math.round(room)} px of room)`);
    });

    // Text wider than its own box: buttons, headings, labels, badges, table headers.
    main.querySelectorAll('button, a.btn, h1, h2, h3, h4, label, .badge, th, .chip').forEach((el) => {
      if (!visible(el)) return;
      const box = el as HTMLElement;
      if (box.scrollWidth > box.clientWidth + 1 && box.clientWidth > 0) out.push(`${describe(el)} is cut: ${box.scrollWidth} px of content in ${box.clientWidth} px`);
    });

    // Controls inside their card, their scroll box and the window.
    main.querySelectorAll('button, a.btn, select, input, textarea').forEach((control) => {
      if (!visible(control)) return;
      const r = control.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 || r.left < -1) out.push(`${describe(control)} is outside the window`);
      const card = control.closest('.card, dialog');
      if (card) {
        const c = card.getBoundingClientRect();
        if (r.right > c.right + 1 || r.left < c.left - 1) out.push(`${describe(control)} sticks out of its card`);
      }
      for (let clip = control.parentElement; clip && clip !== document.body; clip = clip.parentElement) {
        if (getComputedStyle(clip).overflowX === 'visible') continue;
        const c = clip.getBoundingClientRect();
        if (r.right > c.right + 1 || r.left < c.left - 1) out.push(`${describe(control)} is clipped by ${describe(clip).slice(0, 60)}`);
        break;
      }
    });
    return out;
  });
}

/** A screen at its widest: wait for it to load, show revoked keys too, then look. */
async function settle(page: Page): Promise<void> {
  await expect(page.locator('main h1').first(), `a heading on ${page.url()}`).toBeVisible();
  await expect(page.locator('main .loading')).toHaveCount(0);
  await page.waitForLoadState('networkidle');
  const showRevoked = page.locator('main').getByLabel(/^Show revoked/);
  if ((await showRevoked.count()) && !(await showRevoked.isChecked())) await showRevoked.check();
  await page.evaluate(() => document.fonts.ready);
}

interface Seeded {
  custom: { id: number; apiKey: string; apiSecret: string };
  revokedId: number;
  idem: string;
  conflictAuditId: number;
  keyCreateAuditId: number;
  tokenIds: number[];
}

/**
 * What an operator's screens look like after a day of work: keys with custom scopes bound to a doctor (one
 * revoked), refusals with long codes (AUTH_TIMESTAMP_EXPIRED, AUTH_INSUFFICIENT_SCOPE, IDEMPOTENCY_CONFLICT),
 * an unattributed request, backend and storage faults on, operator tokens active and revoked.
 */
async function seed(consoleApi: ConsoleApi, appliance: E2eEnv): Promise<Seeded> {
  const tenant = appliance.tenant;
  const medico = appliance.medicoId ? { medico_id: appliance.medicoId } : {};
  const scopes = ['pacientes:read', 'pacientes:write', 'exames:read', 'exames:write', 'laudos:read', 'agenda:read', 'agenda:write', 'prontuarios:read', 'catalogos:read'];
  const custom = await consoleApi.issueKey(tenant, scopes, { label: 'Laboratório Central — integração LIS de produção (unidade Campinas)', ...medico });
  const revoked = await consoleApi.issueKey(tenant, ['exames:read', 'laudos:read', 'agenda:read'], { label: 'Portal do médico (homologação)', ...medico });
  await consoleApi.call('POST', `/keys/${revoked.id}/revoke`);

  const client = new SignedClient(appliance.baseUrl, custom);
  const idem = `layout-${Date.now()}-pedido-de-exame`;
  const patient = { nome: 'Paciente Layout Longo da Silva', data_nascimento: '1987-06-05', sexo: 'FEM' };
  expect((await client.post('/v1/pacientes', patient, { headers: { 'idempotency-key': idem } })).status).toBe(201);
  const conflict = await client.post('/v1/pacientes', { ...patient, nome: 'Outra Paciente' }, { headers: { 'idempotency-key': idem } });
  expect(conflict.json?.error?.code).toBe('IDEMPOTENCY_CONFLICT');
  // Doctors are written with medicos:write, which this key lacks.
  expect((await client.post('/v1/medicos', { nome: 'Dra. Sem Escopo' })).json?.error?.code).toBe('AUTH_INSUFFICIENT_SCOPE');
  expect((await client.get('/v1/ping', { timestamp: Math.floor(Date.now() / 1000) - 3600 })).json?.error?.code).toBe('AUTH_TIMESTAMP_EXPIRED');
  expect((await client.post('/v1/pacientes', { nome: 'X' })).status).toBe(400);
  expect((await fetch(`${appliance.baseUrl}/v1/ping`)).status).toBe(401);

  await consoleApi.call('POST', '/faults', { tenant, method: 'GET', path: '/v1/exames/*/arquivos/laudo-assinado*', kind: 'http500', latency_ms: 0, failure_rate: 1 });
  await consoleApi.call('POST', '/faults', { tenant: '*', method: '*', path: '/v1/agenda*', kind: 'latency', latency_ms: 1500, failure_rate: 0.25 });
  await consoleApi.call('POST', '/storage-faults', { tenant, failure_rate: 0.5 });
  await consoleApi.call('POST', '/storage-faults', { tenant: '*', failure_rate: 1 });
  const active = await consoleApi.call<{ id: number }>('POST', '/operator-tokens', { label: 'Suíte Playwright do laboratório — CI noturno', tenants: [tenant] });
  const gone = await consoleApi.call<{ id: number }>('POST', '/operator-tokens', { label: 'Script de reset antigo', tenants: '*' });
  await consoleApi.call('POST', `/operator-tokens/${gone.id}/revoke`);

  const auditId = async (query: string) => (await consoleApi.call<{ items: Array<{ id: number }> }>('GET', `/audit?${query}`)).items[0].id;
  return {
    custom,
    revokedId: revoked.id,
    idem,
    conflictAuditId: await auditId(`request_id=${conflict.json.meta.request_id}`),
    keyCreateAuditId: await auditId(`source=console&chave_id=${custom.id}`),
    tokenIds: [active.id, gone.id],
  };
}

async function cleanUp(consoleApi: ConsoleApi, seeded: Seeded | undefined): Promise<void> {
  await consoleApi.call('DELETE', '/faults').catch(() => undefined);
  await consoleApi.call('DELETE', '/storage-faults').catch(() => undefined);
  if (!seeded) return;
  await consoleApi.call('POST', `/keys/${seeded.custom.id}/revoke`).catch(() => undefined);
  for (const id of seeded.tokenIds) await consoleApi.call('POST', `/operator-tokens/${id}/revoke`).catch(() => undefined);
}

test('every screen holds at 1440×900 and 1024×768 with realistic data: no word broken, no control or select cut, no sideways scrolling', async ({
  page,
  consoleApi,
  appliance,
}) => {
  test.setTimeout(240_000);
  let seeded: Seeded | undefined;
  try {
    seeded = await seed(consoleApi, appliance);
    const { tenant } = appliance;
    await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${tenant}`);
    await page.getByLabel('Username').fill(appliance.operator);
    await page.getByLabel('Password').fill(appliance.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();

    // Links are read from the menu, so screens added later are walked too; then the states the menu does not open.
    const nav = page.getByRole('navigation', { name: 'Main' }).locator('a.nav-link');
    const links = await nav.evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href')!, label: a.textContent!.trim() })));
    expect(links.length).toBeGreaterThanOrEqual(9);
    const screens: Array<{ name: string; label: string; href: string; then?: (page: Page) => Promise<void> }> = [
      ...links.map((l) => ({ name: l.href.replace(/^#\//, '').replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '') || 'home', label: l.label, href: l.href })),
      { name: 'keys-clinic', label: 'API keys of the e2e clinic', href: `#/keys?tenant=${tenant}` },
      { name: 'tenants-settings', label: 'Clinic settings', href: `#/tenants?tenant=${tenant}` },
      { name: 'audit-key', label: 'Calls of a key', href: `#/audit?chave_id=${seeded.custom.id}` },
      { name: 'audit-conflict', label: 'Audit entry of a 422 conflict', href: `#/audit/${seeded.conflictAuditId}` },
      { name: 'audit-console', label: 'Audit entry of a console action', href: `#/audit/${seeded.keyCreateAuditId}` },
      { name: 'idempotency-search', label: 'Idempotency search', href: `#/idempotency?tenant=${tenant}&idem_key=${seeded.idem}` },
      { name: 'idempotency-key', label: 'Idempotency of a key', href: `#/idempotency?tenant=${tenant}&chave_id=${seeded.custom.id}` },
      {
        name: 'playground-sent',
        label: 'Playground after a send',
        href: '#/playground',
        then: async (p) => {
          await p.getByLabel('Clinic').selectOption(tenant);
          await p.getByLabel('Key', { exact: true }).selectOption(String(seeded!.custom.id));
          await expect(p.getByLabel('API key (X-API-Key)')).toHaveValue(seeded!.custom.apiKey);
          await p.getByLabel('API secret').fill(seeded!.custom.apiSecret);
          await p.getByLabel('Path and query').fill('/v1/pacientes?limit=2&offset=0');
          await p.getByRole('button', { name: 'Send', exact: true }).click();
          await expect(p.getByTestId('response-status')).toHaveAttribute('data-status', '200');
        },
      },
    ];

    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const screen of screens) {
        await test.step(`${screen.label} at ${size.width}×${size.height}`, async () => {
          // A hash change keeps the page's state; a reload starts each screen fresh.
          await page.goto(`${appliance.baseUrl}/console/${screen.href}`);
          await page.reload();
          await settle(page);
          if (screen.then) {
            await screen.then(page);
            await settle(page);
          }
          expect.soft(await problems(page), `${screen.label} at ${size.width}×${size.height}`).toEqual([]);
          await shot(page, `screen-${screen.name}-${size.width}`);
        });
      }
    }
  } finally {
    await cleanUp(consoleApi, seeded);
  }
});

test('the check itself: a badge that breaks inside its word, a cut select and a sideways page are caught', async ({ operatorPage: page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await settle(page);
  await page.evaluate(() => {
    const main = document.querySelector('main')!;
    const probe = document.createElement('div');
    probe.innerHTML = `<div class="card" style="width: 60px"><span class="badge" style="white-space: normal; overflow-wrap: anywhere">Unverified</span></div>
      <select id="probe-select" style="width: 80px"><option>Backend error (HTTP 500)</option></select>
      <div style="width: 2000px; height: 4px"></div>`;
    main.appendChild(probe);
  });
  const found = await problems(page);
  expect(found.some((p) => /"Unverified" breaks across lines/.test(p))).toBe(true);
  expect(found.some((p) => /select #probe-select cuts "Backend error \(HTTP 500\)"/.test(p))).toBe(true);
  expect(found.some((p) => /page scrolls sideways/.test(p))).toBe(true);
});
