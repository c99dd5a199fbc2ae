import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { type ConsoleApi, expect, SignedClient, test, type E2eEnv } from './kit/index.ts';

// Writes patients in the worker's clinic, from its first-start state. The seed turns faults on for every clinic,
// adds operators and operator tokens and walks screens that list everything: each test runs alone.
test.use({ resetBeforeEach: true, applianceWide: true });

const SCREENSHOTS =
  process.env.E2E_SCREENSHOTS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');
/** Issue 22 § 1: a wide desktop and a 1024×768 laptop or tablet. */
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

/** `E2E_SCREENSHOTS=1` writes docs/screenshots/screen-<screen>-<width>.png (docs/console.md links them). */
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
 *   the window;
 * - anything inside a card or an open dialog reaches past its edges without a scroll box of its own between
 *   them (long JSON must wrap or scroll inside its card), or a block's text is wider than the block;
 * - an open dialog is wider than the window or scrolls sideways;
 * - a card has nothing in it but its heading, or a heading ends in a dash with nothing after it ("Detail —").
 */
async function problems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const describe = (el: Element) => {
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      const id = el.id ? `#${el.id}` : '';
      const cls =
        typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      const label = el.getAttribute('aria-label') ? `[aria-label="${el.getAttribute('aria-label')}"]` : '';
      return `<${el.tagName.toLowerCase()}${id}${cls}${label}> "${text}"`;
    };
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2) return false;
      const style = getComputedStyle(el);
      return style.visibility !== 'hidden' && style.display !== 'none';
    };

    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      // Named by the innermost elements past the window's edge: what pushes the page.
      const past = [...document.body.querySelectorAll('*')].filter(
        (el) => el.getBoundingClientRect().right > root.clientWidth + 1,
      );
      const culprits = past.filter((el) => !past.some((other) => other !== el && el.contains(other))).slice(0, 3);
      out.push(
        `page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth} (${culprits.map((el) => describe(el).slice(0, 60)).join('; ')})`,
      );
    }
    const main = document.querySelector('main');
    if (!main) return ['no <main>'];
    main.querySelectorAll('table').forEach((table, i) => {
      const box = (table.closest('.table-wrap') as HTMLElement | null) ?? table.parentElement!;
      const label = table.closest('[aria-label]')?.getAttribute('aria-label') ?? `table ${i + 1}`;
      if (box.scrollWidth > box.clientWidth + 1)
        out.push(`${label}: table ${box.scrollWidth} px wide in a ${box.clientWidth} px box`);
    });

    // Words broken across lines, everywhere in the document (menu, dialogs, JSON blocks and snippets included:
    // their long lines break at spaces and punctuation, never inside a word).
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const broken = new Set<string>();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('.sr-only, option, script, style, textarea, [hidden]') || !visible(parent))
        continue;
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
      if (needed > room + 1)
        out.push(
          `select ${select.id ? `#${select.id}` : ''} cuts "${text}" (${Math.round(needed)} px of text, ${Math.round(room)} px of room)`,
        );
    });

    // Text wider than its own box: buttons, headings, labels, badges, table headers.
    main.querySelectorAll('button, a.btn, h1, h2, h3, h4, label, .badge, th, .chip').forEach((el) => {
      if (!visible(el)) return;
      const box = el as HTMLElement;
      if (box.scrollWidth > box.clientWidth + 1 && box.clientWidth > 0)
        out.push(`${describe(el)} is cut: ${box.scrollWidth} px of content in ${box.clientWidth} px`);
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
        if (r.right > c.right + 1 || r.left < c.left - 1)
          out.push(`${describe(control)} is clipped by ${describe(clip).slice(0, 60)}`);
        break;
      }
    });

    // Open dialogs: inside the window, no sideways scrolling.
    document.querySelectorAll('dialog[open]').forEach((dialog) => {
      const r = dialog.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 || r.left < -1)
        out.push(`dialog ${describe(dialog)} is wider than the window`);
      dialog.querySelectorAll('*').forEach((el) => {
        const box = el as HTMLElement;
        if (visible(el) && getComputedStyle(el).overflowX !== 'visible' && box.scrollWidth > box.clientWidth + 1) {
          out.push(`${describe(el)} in a dialog scrolls sideways: ${box.scrollWidth} px in ${box.clientWidth} px`);
        }
      });
    });

    // Cards and dialogs hold what is in them: nothing reaches past their edges unless a scroll box between
    // holds it (a JSON block scrolls inside its card); no block's own text is wider than the block.
    const boxes = [...main.querySelectorAll('.card'), ...document.querySelectorAll('dialog[open]')].filter(visible);
    for (const box of boxes) {
      const edge = box.getBoundingClientRect();
      const reported: Element[] = [];
      for (const el of box.querySelectorAll('*')) {
        if (!visible(el) || el.closest('.sr-only') || reported.some((r) => r.contains(el))) continue;
        let held = false;
        for (let up = el.parentElement; up && up !== box; up = up.parentElement) {
          if (getComputedStyle(up).overflowX !== 'visible') held = true;
        }
        if (held) continue;
        const r = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        if (r.right > edge.right + 1 || r.left < edge.left - 1) {
          out.push(`${describe(el)} reaches past the edge of ${describe(box).slice(0, 70)}`);
          reported.push(el);
        } else if (
          style.overflowX === 'visible' &&
          style.display !== 'inline' &&
          (el as HTMLElement).scrollWidth > (el as HTMLElement).clientWidth + 1 &&
          (el as HTMLElement).clientWidth > 0
        ) {
          out.push(
            `${describe(el)}: its content is ${(el as HTMLElement).scrollWidth} px wide in a ${(el as HTMLElement).clientWidth} px box`,
          );
          reported.push(el);
        }
      }
    }

    // No empty card, no heading left hanging ("Detail —").
    for (const card of main.querySelectorAll('.card')) {
      if (!visible(card)) continue;
      const content = [...card.querySelectorAll('*')].filter(
        (el) => !el.closest('h1, h2, h3, h4, .section-title') && visible(el),
      );
      const hasContent =
        content.some((el) => el.matches('input, select, textarea, button, table, pre, img, svg, canvas')) ||
        content.some((el) =>
          [...el.childNodes].some(
            (n) =>
              n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() && (n.textContent ?? '').trim() !== '—',
          ),
        );
      if (!hasContent) out.push(`${describe(card)} is an empty card`);
    }
    for (const heading of document.querySelectorAll('h1, h2, h3, h4')) {
      if (visible(heading) && /[—–:·-]\s*$/.test((heading.textContent ?? '').trim()))
        out.push(`heading ${describe(heading)} ends with nothing after its dash`);
    }
    return out;
  });
}

interface ClinicRef {
  slug: string;
  nome: string;
}

/** Codes this long or shorter are read whole (console/src/lib/vocabulary.tsx, the same bound). */
const SHORT_CODE_MAX = 32;

/**
 * Slugs and short codes laid out on two lines (issue 29), as sentences: inside a code, chip, badge, key or
 * monospace value, each piece between spaces of up to 32 characters (a slug, a key prefix, an id, an error code,
 * a masked key, a short path) is on one line, and every clinic's slug (up to 40) is on one line wherever it is. A browser breaks
 * `clinica-b` after its hyphen where a column is short of room, which the broken-word check of `problems` cannot
 * see (`clinica` and `b` each stay whole). Longer pieces (paths, hashes, secrets) may break at their <wbr>; JSON
 * blocks and secrets in a <pre> wrap as they must.
 */
async function splitCodes(page: Page, clinics: ClinicRef[]): Promise<string[]> {
  return page.evaluate(
    ({ slugs, max }) => {
      const out = new Set<string>();
      const SKIP = 'pre, textarea, option, script, style, .sr-only, [hidden]';
      const visible = (el: Element) => {
        const r = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
      };
      const where = (el: Element) =>
        `<${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}>`;
      const range = document.createRange();
      /** The lines characters [start, end) of `el`'s text are laid out on (its text nodes, <wbr> pieces included). */
      const lines = (nodes: Text[], starts: number[], start: number, end: number) => {
        const at = (offset: number, last: boolean) => {
          let i = nodes.length - 1;
          while (i > 0 && (last ? starts[i] >= offset : starts[i] > offset)) i--;
          return { node: nodes[i], offset: offset - starts[i] };
        };
        const a = at(start, false);
        const b = at(end, true);
        range.setStart(a.node, a.offset);
        range.setEnd(b.node, b.offset);
        return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
      };
      const sameRun = (a: Text, b: Text) => {
        let between = a.nextSibling;
        while (between && between !== b && between.nodeName === 'WBR') between = between.nextSibling;
        return between === b;
      };
      const textOf = (root: Element) => {
        const nodes: Text[] = [];
        const starts: number[] = [];
        let text = '';
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
          if (node.parentElement?.closest(SKIP)) continue;
          // Text of another element is another piece (`#2` and its badge), the pieces <wbr> splits are one.
          const previous = nodes.at(-1);
          if (previous && !sameRun(previous, node)) text += ' ';
          nodes.push(node);
          starts.push(text.length);
          text += node.data;
        }
        return { nodes, starts, text };
      };

      const CODE = 'code, kbd, .mono, .code, .chip, .badge, .clinic-slug';
      const codes = [...document.body.querySelectorAll(CODE)].filter(
        (el) => !el.parentElement?.closest(CODE) && !el.closest(SKIP) && visible(el),
      );
      for (const el of codes) {
        const { nodes, starts, text } = textOf(el);
        if (!nodes.length) continue;
        for (const piece of text.matchAll(/\S+/g)) {
          if (piece[0].length > max) continue;
          if (lines(nodes, starts, piece.index!, piece.index! + piece[0].length) > 1)
            out.add(`"${piece[0]}" breaks across lines in ${where(el)}`);
        }
      }
      for (const el of document.body.querySelectorAll('*')) {
        if (el.closest(SKIP) || !visible(el)) continue;
        for (const child of el.childNodes) {
          if (child.nodeType !== Node.TEXT_NODE) continue;
          const data = (child as Text).data;
          for (const slug of slugs) {
            const found = new RegExp(`(^|[^a-z0-9-])(${slug.replace(/-/g, '\\-')})($|[^a-z0-9-])`).exec(data);
            if (!found) continue;
            const start = found.index + found[1].length;
            if (lines([child as Text], [0], start, start + slug.length) > 1)
              out.add(`slug "${slug}" breaks across lines in ${where(el)}`);
          }
        }
      }
      return [...out];
    },
    { slugs: clinics.map((c) => c.slug), max: SHORT_CODE_MAX },
  );
}

/**
 * Words that must not reach the operator as they are stored (issue 22 § 2, one vocabulary), as sentences:
 * - a status, state or fault kind as its raw code: a text that is exactly `active`, `revoked`, `in_flight`,
 *   `http500`…, or a fault kind such as `http500` / `invalid_json` anywhere in a sentence;
 * - a clinic's slug where its name is nowhere near (the same row, heading, option, line, banner or dialog):
 *   a clinic is its name, with the slug where an integrator needs it.
 * Code spans, monospace values and JSON blocks are data and may hold codes and slugs; option texts count.
 */
async function wording(page: Page, clinics: ClinicRef[]): Promise<string[]> {
  return page.evaluate((clinics) => {
    const out = new Set<string>();
    const RAW_ALONE =
      /^(active|revoked|expired|disabled|inactive|legacy|sandbox|in_flight|abandoned|completed|stored_503|http500|invalid_json|drop|hang|latency)$/;
    const RAW_ANYWHERE = /\b(http\d{3}|invalid_json|in_flight|stored_503)\b/;
    const DATA = 'code, pre, kbd, .mono, .sr-only, script, style, textarea, [hidden]';
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
    };
    const where = (el: Element) =>
      `<${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}>`;
    const texts: Array<{ text: string; el: Element; data: boolean }> = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const text = (node.textContent ?? '').trim();
      if (!parent || !text || parent.closest('option, script, style') || !visible(parent)) continue;
      texts.push({ text, el: parent, data: Boolean(parent.closest(DATA)) });
    }
    document.querySelectorAll('select').forEach((select) => {
      if (!visible(select)) return;
      for (const option of select.options)
        texts.push({ text: (option.textContent ?? '').trim(), el: option, data: false });
    });
    for (const { text, el, data } of texts) {
      if (data) continue;
      if (RAW_ALONE.test(text)) out.add(`raw code "${text}" shown in ${where(el)}`);
      const inside = RAW_ANYWHERE.exec(text);
      if (inside) out.add(`raw code "${inside[1]}" in "${text.slice(0, 60)}" (${where(el)})`);
    }
    const UNITS = 'tr, li, option, dd, h1, h2, h3, h4, p, .banner, dialog, .card, .toolbar, nav';
    for (const { text, el, data } of texts) {
      // A slug inside a path or a code span is data (POST /admin/api/tenants/<slug>/keys), not a clinic's display.
      if (data) continue;
      for (const clinic of clinics) {
        if (!new RegExp(`(^|[^a-z0-9-])${clinic.slug.replace(/[-]/g, '\\-')}($|[^a-z0-9-])`).test(text)) continue;
        const unit = el.closest(UNITS) ?? el.parentElement ?? el;
        if (!(unit.textContent ?? '').includes(clinic.nome))
          out.add(
            `clinic "${clinic.slug}" without its name "${clinic.nome}" in ${where(unit)} "${(unit.textContent ?? '').trim().slice(0, 60)}"`,
          );
      }
    }
    return [...out];
  }, clinics);
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

/** The open dialog, once what it loads has arrived. */
async function settleDialog(page: Page): Promise<Locator> {
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.loading')).toHaveCount(0);
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => document.fonts.ready);
  return dialog;
}

/** The checks, soft: one run lists every problem of every screen, state and dialog. */
async function look(page: Page, what: string, clinics: ClinicRef[]): Promise<void> {
  expect.soft(await problems(page), `layout: ${what}`).toEqual([]);
  expect.soft(await wording(page, clinics), `wording: ${what}`).toEqual([]);
  expect.soft(await splitCodes(page, clinics), `codes: ${what}`).toEqual([]);
}

async function clinicsOf(consoleApi: ConsoleApi): Promise<ClinicRef[]> {
  return (await consoleApi.call<ClinicRef[]>('GET', '/tenants')).map(({ slug, nome }) => ({ slug, nome }));
}

async function signInThroughTheForm(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/** The spec's operators, the same accounts every run (operators are disabled, never deleted: nothing piles up). */
const VIEWER = 'layout.viewer.somente-leitura';
const DISABLED_OPERATOR = 'layout.operador-desativado.laboratorio-central-campinas';

/**
 * One of the spec's viewers, found or added: `enabled` with a fresh password (shown once, so reset each run), or
 * `disabled` (a disabled account's row, with its Enable button, is part of a day's Operators screen).
 */
async function layoutOperator(
  consoleApi: ConsoleApi,
  username: string,
  state: 'enabled' | 'disabled',
): Promise<{ id: number; password: string }> {
  type Operator = { id: number; username: string; status: 'active' | 'disabled' };
  let operator = (await consoleApi.call<Operator[]>('GET', '/operators')).find((o) => o.username === username);
  let password = '';
  if (!operator)
    ({ operator, password } = await consoleApi.call<{ operator: Operator; password: string }>('POST', '/operators', {
      username,
      role: 'viewer',
    }));
  const wanted = state === 'disabled' ? 'disabled' : 'active';
  if (operator.status !== wanted)
    await consoleApi.call('PATCH', `/operators/${operator.id}`, { disabled: state === 'disabled' });
  if (state === 'enabled' && !password)
    password = (await consoleApi.call<{ password: string }>('POST', `/operators/${operator.id}/reset-password`))
      .password;
  return { id: operator.id, password };
}

/** A query parameter no route knows, long and without a space: its 400 answer is a JSON line wider than any card. */
const LONG_PARAMETER = 'parametro_de_filtro_que_o_integrador_inventou_e_que_nao_existe_na_especificacao_da_api_v1';

const SECOND_CLINIC: ClinicRef = { slug: 'clinica-b', nome: 'Clínica B — Diagnóstico por Imagem e Análises Clínicas' };

interface Seeded {
  custom: { id: number; apiKey: string; apiSecret: string };
  revokedId: number;
  idem: string;
  conflictAuditId: number;
  keyCreateAuditId: number;
  longAnswerAuditId: number;
  tokenIds: number[];
}

/**
 * What an operator's screens look like after a day of work: keys with custom scopes bound to a doctor (one
 * revoked), refusals with long codes (AUTH_TIMESTAMP_EXPIRED, AUTH_INSUFFICIENT_SCOPE, IDEMPOTENCY_CONFLICT),
 * an unattributed request, a refusal whose journaled answer has a long unbroken line, backend and storage
 * faults on, operator tokens active and revoked, a disabled operator with a long username.
 */
async function seed(consoleApi: ConsoleApi, appliance: E2eEnv): Promise<Seeded> {
  const tenant = appliance.tenant;
  const medico = appliance.medicoId ? { medico_id: appliance.medicoId } : {};
  const scopes = [
    'pacientes:read',
    'pacientes:write',
    'exames:read',
    'exames:write',
    'laudos:read',
    'agenda:read',
    'agenda:write',
    'prontuarios:read',
    'catalogos:read',
  ];
  const custom = await consoleApi.issueKey(tenant, scopes, {
    label: 'Laboratório Central — integração LIS de produção (unidade Campinas)',
    ...medico,
  });
  const revoked = await consoleApi.issueKey(tenant, ['exames:read', 'laudos:read', 'agenda:read'], {
    label: 'Portal do médico (homologação)',
    ...medico,
  });
  await consoleApi.call('POST', `/keys/${revoked.id}/revoke`);

  // A second clinic as a first start makes it, found or added: a hyphenated slug beside a long name leaves the
  // clinics table short of room, where `clinica-b` broke after its hyphen (issue 29).
  const clinics = await consoleApi.call<ClinicRef[]>('GET', '/tenants');
  if (!clinics.some((c) => c.slug === SECOND_CLINIC.slug)) await consoleApi.call('POST', '/tenants', SECOND_CLINIC);

  const client = new SignedClient(appliance.baseUrl, custom);
  const idem = `layout-${Date.now()}-pedido-de-exame`;
  const patient = { nome: 'Paciente Layout Longo da Silva', data_nascimento: '1987-06-05', sexo: 'FEM' };
  expect((await client.post('/v1/pacientes', patient, { headers: { 'idempotency-key': idem } })).status).toBe(201);
  const conflict = await client.post(
    '/v1/pacientes',
    { ...patient, nome: 'Outra Paciente' },
    { headers: { 'idempotency-key': idem } },
  );
  expect(conflict.json?.error?.code).toBe('IDEMPOTENCY_CONFLICT');
  // Doctors are written with medicos:write, which this key lacks.
  expect((await client.post('/v1/medicos', { nome: 'Dra. Sem Escopo' })).json?.error?.code).toBe(
    'AUTH_INSUFFICIENT_SCOPE',
  );
  expect((await client.get('/v1/ping', { timestamp: Math.floor(Date.now() / 1000) - 3600 })).json?.error?.code).toBe(
    'AUTH_TIMESTAMP_EXPIRED',
  );
  expect((await client.post('/v1/pacientes', { nome: 'X' })).status).toBe(400);
  expect((await fetch(`${appliance.baseUrl}/v1/ping`)).status).toBe(401);
  const longAnswer = await client.get(`/v1/pacientes?${LONG_PARAMETER}=${'1'.repeat(40)}`);
  expect(longAnswer.status).toBe(400);
  expect(JSON.stringify(longAnswer.json)).toContain(LONG_PARAMETER);

  await consoleApi.call('POST', '/faults', {
    tenant,
    method: 'GET',
    path: '/v1/exames/*/arquivos/laudo-assinado*',
    kind: 'http500',
    latency_ms: 0,
    failure_rate: 1,
  });
  await consoleApi.call('POST', '/faults', {
    tenant: '*',
    method: '*',
    path: '/v1/agenda*',
    kind: 'latency',
    latency_ms: 1500,
    failure_rate: 0.25,
  });
  await consoleApi.call('POST', '/storage-faults', { tenant, failure_rate: 0.5 });
  await consoleApi.call('POST', '/storage-faults', { tenant: '*', failure_rate: 1 });
  await layoutOperator(consoleApi, DISABLED_OPERATOR, 'disabled');
  const active = await consoleApi.call<{ id: number }>('POST', '/operator-tokens', {
    label: 'Suíte Playwright do laboratório — CI noturno',
    tenants: [tenant],
  });
  const gone = await consoleApi.call<{ id: number }>('POST', '/operator-tokens', {
    label: 'Script de reset antigo',
    tenants: '*',
  });
  await consoleApi.call('POST', `/operator-tokens/${gone.id}/revoke`);

  const auditId = async (query: string) =>
    (await consoleApi.call<{ items: Array<{ id: number }> }>('GET', `/audit?${query}`)).items[0].id;
  return {
    custom,
    revokedId: revoked.id,
    idem,
    conflictAuditId: await auditId(`request_id=${conflict.json.meta.request_id}`),
    keyCreateAuditId: await auditId(`source=console&chave_id=${custom.id}`),
    longAnswerAuditId: await auditId(`request_id=${longAnswer.json.meta.request_id}`),
    tokenIds: [active.id, gone.id],
  };
}

async function cleanUp(consoleApi: ConsoleApi, seeded: Seeded | undefined): Promise<void> {
  await consoleApi.call('DELETE', '/faults').catch(() => undefined);
  await consoleApi.call('DELETE', '/storage-faults').catch(() => undefined);
  if (!seeded) return;
  await consoleApi.revokeKey(seeded.custom.id).catch(() => undefined);
  for (const id of seeded.tokenIds) await consoleApi.removeOperatorToken(id).catch(() => undefined);
}

interface Screen {
  name: string;
  label: string;
  href: string;
  after?: (page: Page) => Promise<void>;
}

/** The menu's screens, read from the menu itself: a screen added later is walked too. */
async function menuScreens(page: Page): Promise<Screen[]> {
  const nav = page.getByRole('navigation', { name: 'Main' }).locator('a.nav-link');
  const links = await nav.evaluateAll((as) =>
    as.map((a) => ({ href: a.getAttribute('href')!, label: a.textContent!.trim() })),
  );
  expect(links.length).toBeGreaterThanOrEqual(10);
  return links.map((l) => ({
    name:
      l.href
        .replace(/^#\//, '')
        .replace(/[^a-z0-9]+/gi, '-')
        .replace(/-$/, '') || 'home',
    label: l.label,
    href: l.href,
  }));
}

/**
 * The states the menu does not open: one clinic's keys and settings, a key's calls, journal entries, searches,
 * the playground filled in and sent (a viewer's Send is an admin's write: filled in, Send offered disabled).
 */
function stateScreens(tenant: string, seeded: Seeded, role: 'admin' | 'viewer'): Screen[] {
  return [
    { name: 'keys-clinic', label: 'API keys of the e2e clinic', href: `#/keys?tenant=${tenant}` },
    { name: 'tenants-settings', label: 'Clinic settings', href: `#/tenants?tenant=${tenant}` },
    {
      name: 'tenants-settings-clinica-b',
      label: `Settings of ${SECOND_CLINIC.slug}`,
      href: `#/tenants?tenant=${SECOND_CLINIC.slug}`,
    },
    { name: 'audit-key', label: 'Calls of a key', href: `#/audit?chave_id=${seeded.custom.id}` },
    { name: 'traffic-key', label: 'Traffic of a key', href: `#/traffic?tenant=${tenant}&chave_id=${seeded.custom.id}` },
    { name: 'traffic-clinic-24h', label: 'Traffic of the clinic, 24 h', href: `#/traffic?tenant=${tenant}&window=24h` },
    { name: 'audit-conflict', label: 'Audit entry of a 422 conflict', href: `#/audit/${seeded.conflictAuditId}` },
    { name: 'audit-console', label: 'Audit entry of a console action', href: `#/audit/${seeded.keyCreateAuditId}` },
    {
      name: 'audit-long-answer',
      label: 'Audit entry whose answer has a long unbroken line',
      href: `#/audit/${seeded.longAnswerAuditId}`,
      after: async (p) => {
        // The long line is there, and its block stays inside the Response card: it wraps or scrolls within it.
        const json = p.getByTestId('detail-response').locator('pre');
        await expect(json).toContainText(LONG_PARAMETER);
        const held = await json.evaluate((el) => {
          const card = el.closest('.card')!.getBoundingClientRect();
          const r = el.getBoundingClientRect();
          const scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
          return {
            insideItsCard: r.left >= card.left - 1 && r.right <= card.right + 1,
            wrapsOrScrolls: el.scrollWidth <= el.clientWidth + 1 || scrolls,
          };
        });
        expect(held).toEqual({ insideItsCard: true, wrapsOrScrolls: true });
      },
    },
    {
      name: 'idempotency-search',
      label: 'Idempotency search',
      href: `#/idempotency?tenant=${tenant}&idem_key=${seeded.idem}`,
    },
    {
      name: 'idempotency-key',
      label: 'Idempotency of a key',
      href: `#/idempotency?tenant=${tenant}&chave_id=${seeded.custom.id}`,
    },
    {
      name: role === 'admin' ? 'playground-sent' : 'playground-filled',
      label: role === 'admin' ? 'Playground after a send' : 'Playground filled in',
      href: '#/playground',
      after: async (p) => {
        await p.getByLabel('Clinic').selectOption(tenant);
        await p.getByLabel('Key', { exact: true }).selectOption(String(seeded.custom.id));
        await expect(p.getByLabel('API key (X-API-Key)')).toHaveValue(seeded.custom.apiKey);
        await p.getByLabel('API secret').fill(seeded.custom.apiSecret);
        await p.getByLabel('Path and query').fill('/v1/pacientes?limit=2&offset=0');
        const send = p.getByRole('button', { name: 'Send', exact: true });
        if (role === 'viewer') return expect(send).toBeDisabled();
        await send.click();
        await expect(p.getByTestId('response-status')).toHaveAttribute('data-status', '200');
      },
    },
  ];
}

/** Every screen at both sizes, each from a fresh load; `shots`: the prefix of its pictures (E2E_SCREENSHOTS=1). */
async function walk(
  page: Page,
  baseUrl: string,
  screens: Screen[],
  clinics: ClinicRef[],
  who: string,
  shots?: string,
): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const screen of screens) {
      const what = `${screen.label} at ${size.width}×${size.height} (${who})`;
      await test.step(what, async () => {
        // A hash change keeps the page's state; a reload starts each screen fresh.
        await page.goto(`${baseUrl}/console/${screen.href}`);
        await page.reload();
        await settle(page);
        if (screen.after) {
          await screen.after(page);
          await settle(page);
        }
        await look(page, what, clinics);
        if (shots) await shot(page, `${shots}-${screen.name}-${size.width}`);
      });
    }
  }
}

test('every screen holds at 1440×900 and 1024×768 with realistic data: no word broken, no control or select cut, no sideways scrolling, no raw code', async ({
  page,
  consoleApi,
  appliance,
}) => {
  test.setTimeout(240_000);
  let seeded: Seeded | undefined;
  try {
    seeded = await seed(consoleApi, appliance);
    await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${appliance.tenant}`);
    await signInThroughTheForm(page, appliance.operator, appliance.password);
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    const screens = [...(await menuScreens(page)), ...stateScreens(appliance.tenant, seeded, 'admin')];
    await walk(page, appliance.baseUrl, screens, await clinicsOf(consoleApi), 'admin', 'screen');
  } finally {
    await cleanUp(consoleApi, seeded);
  }
});

test("the viewer's screens hold too: the same menu and states, read-only, at both sizes", async ({
  browser,
  consoleApi,
  appliance,
}) => {
  test.setTimeout(240_000);
  let seeded: Seeded | undefined;
  let viewerId: number | undefined;
  const context = await browser.newContext();
  try {
    seeded = await seed(consoleApi, appliance);
    const viewer = await layoutOperator(consoleApi, VIEWER, 'enabled');
    viewerId = viewer.id;
    const page = await context.newPage();
    await page.goto(`${appliance.baseUrl}/console/#/keys?tenant=${appliance.tenant}`);
    await signInThroughTheForm(page, VIEWER, viewer.password);
    await expect(page.getByTestId('read-only-role')).toBeVisible();
    const screens = [...(await menuScreens(page)), ...stateScreens(appliance.tenant, seeded, 'viewer')];
    await walk(page, appliance.baseUrl, screens, await clinicsOf(consoleApi), 'viewer');
  } finally {
    await context.close();
    if (viewerId) await consoleApi.call('PATCH', `/operators/${viewerId}`, { disabled: true }).catch(() => undefined);
    await cleanUp(consoleApi, seeded);
  }
});

test('dialogs and the sign-in page hold at both sizes: new key and its secret, rotate, revoke, clinic reset, new operator, change password; sign-in refused and expired', async ({
  page,
  consoleApi,
  appliance,
}) => {
  test.setTimeout(180_000);
  const { tenant, baseUrl } = appliance;
  const clinics = await clinicsOf(consoleApi);
  const medico = appliance.medicoId ? { medico_id: appliance.medicoId } : {};
  const target = await consoleApi.issueKey(
    tenant,
    ['pacientes:read', 'pacientes:write', 'exames:read', 'laudos:read', 'agenda:read'],
    {
      label: 'Laboratório Central — integração LIS de produção (unidade Campinas)',
      ...medico,
    },
  );
  const issued: number[] = [];
  const open = async (name: string, button: Locator) => {
    await button.click();
    const dialog = await settleDialog(page);
    await look(page, name, clinics);
    return dialog;
  };
  try {
    await page.goto(`${baseUrl}/console/#/keys?tenant=${tenant}`);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const at = `at ${size.width}×${size.height}`;

      await test.step(`sign-in page, refused and expired ${at}`, async () => {
        const signOut = page.getByRole('button', { name: 'Sign out' });
        if (await signOut.count()) await signOut.click();
        await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
        await look(page, `sign-in ${at}`, clinics);
        // A username nobody has: its own lockout pair, so the operator's sign-in is not touched.
        await page.getByLabel('Username').fill(`layout.nobody.${size.width}`);
        await page.getByLabel('Password').fill('not-the-password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect(page.getByRole('alert')).toContainText('Wrong username or password.');
        await look(page, `sign-in refused ${at}`, clinics);
        await signInThroughTheForm(page, appliance.operator, appliance.password);
        // The session ends on the server, as the idle timeout ends it; the next request finds out.
        const csrf = (await (await page.request.get(`${baseUrl}/admin/api/auth/session`)).json()).data
          .csrf_token as string;
        expect(
          (await page.request.post(`${baseUrl}/admin/api/auth/logout`, { headers: { 'x-csrf-token': csrf } })).status(),
        ).toBe(200);
        await page.getByRole('link', { name: 'Audit log' }).click();
        await expect(page.getByTestId('session-expired')).toBeVisible();
        await look(page, `sign-in after the session expired ${at}`, clinics);
        await signInThroughTheForm(page, appliance.operator, appliance.password);
      });

      await test.step(`key dialogs ${at}`, async () => {
        await page.goto(`${baseUrl}/console/#/keys?tenant=${tenant}`);
        await page.reload();
        await settle(page);
        const form = await open(`new key ${at}`, page.getByRole('button', { name: '+ New key' }));
        await form
          .getByLabel('Label')
          .fill('Laboratório Central — integração LIS de produção (unidade Campinas, turno da noite)');
        if (appliance.medicoId) await form.getByLabel('Bound doctor').selectOption(String(appliance.medicoId));
        await look(page, `new key, filled in ${at}`, clinics);
        await form.getByRole('button', { name: 'Issue key' }).click();
        const secret = page.getByRole('dialog');
        await expect(secret.getByRole('heading', { name: /^Key #\d+ issued$/ })).toBeVisible();
        const id = Number(/#(\d+)/.exec((await secret.getByRole('heading').textContent())!)![1]);
        issued.push(id);
        consoleApi.track(id);
        await settleDialog(page);
        await look(page, `secret shown once ${at}`, clinics);
        await secret.getByLabel('I have stored the secret safely').check();
        await secret.getByRole('button', { name: 'Done' }).click();
        await expect(page.getByRole('dialog')).toHaveCount(0);

        for (const action of ['Rotate', 'Revoke']) {
          const confirm = await open(
            `${action.toLowerCase()} confirmation ${at}`,
            page.getByRole('button', { name: `${action} key ${target.id}` }),
          );
          await confirm.getByRole('button', { name: 'Cancel' }).click();
          await expect(page.getByRole('dialog')).toHaveCount(0);
        }
      });

      await test.step(`clinic reset dialog ${at}`, async () => {
        await page.goto(`${baseUrl}/console/#/tenants?tenant=${tenant}`);
        await page.reload();
        await settle(page);
        const reset = await open(`clinic reset ${at}`, page.getByRole('button', { name: `Reset ${tenant}` }));
        await reset.getByLabel(`Type ${tenant} to confirm`).fill(tenant);
        await look(page, `clinic reset, confirmed ${at}`, clinics);
        await reset.getByRole('button', { name: 'Cancel' }).click();
        await expect(page.getByRole('dialog')).toHaveCount(0);
      });

      await test.step(`operator dialogs ${at}`, async () => {
        await page.goto(`${baseUrl}/console/#/operators`);
        await page.reload();
        await settle(page);
        const add = await open(`new operator ${at}`, page.getByRole('button', { name: '+ New operator' }));
        // Sent empty: the form's own errors, under their fields (nothing reaches the server).
        await add.getByRole('button', { name: 'Add operator' }).click();
        await expect(add.getByRole('alert').first()).toBeVisible();
        await look(page, `new operator with its errors ${at}`, clinics);
        await add.getByRole('button', { name: 'Cancel' }).click();
        const change = await open(`change password ${at}`, page.getByRole('button', { name: 'Change password' }));
        await change.getByRole('button', { name: 'Change password' }).click();
        await expect(change.getByRole('alert').first()).toBeVisible();
        await look(page, `change password with its errors ${at}`, clinics);
        await change.getByRole('button', { name: 'Cancel' }).click();
        await expect(page.getByRole('dialog')).toHaveCount(0);
      });
    }
  } finally {
    for (const id of [target.id, ...issued]) await consoleApi.revokeKey(id).catch(() => undefined);
  }
});

test('the checks themselves: a broken word, a split slug or code, a cut select, a sideways page, an empty card, JSON past its card, raw codes and a bare slug are caught', async ({
  operatorPage: page,
  appliance,
  consoleApi,
}) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await settle(page);
  const clinics = await clinicsOf(consoleApi);
  const nome = clinics.find((c) => c.slug === appliance.tenant)!.nome;
  expect(await wording(page, clinics), 'the keys screen as it is').toEqual([]);
  await page.evaluate((slug) => {
    const main = document.querySelector('main')!;
    const probe = document.createElement('div');
    probe.innerHTML = `<div class="card" style="width: 60px"><span class="badge" style="white-space: normal; overflow-wrap: anywhere">Unverified</span></div>
      <select id="probe-select" style="width: 80px"><option>Backend error (HTTP 500)</option></select>
      <div style="width: 2000px; height: 4px"></div>
      <section class="card card-pad" id="probe-empty"><h3>Detail —</h3></section>
      <section class="card card-pad" id="probe-past" style="width: 300px"><pre style="white-space: pre; overflow: visible">{"field": "${'x'.repeat(120)}"}</pre><div id="probe-wide" style="width: 500px; height: 4px"></div></section>
      <section class="card card-pad" id="probe-scrolls" style="width: 300px"><pre style="white-space: pre; overflow: auto">{"field": "${'y'.repeat(120)}"}</pre></section>
      <span class="badge">http500</span> <span class="badge">active</span> <h2 id="probe-slug">Reset ${slug}?</h2>
      <div style="width: 40px"><code style="white-space: normal">clinica-b</code></div>
      <p style="width: 40px">of clinica-sonda</p>`;
    main.appendChild(probe);
  }, appliance.tenant);
  const found = await problems(page);
  expect(found.some((p) => /"Unverified" breaks across lines/.test(p))).toBe(true);
  expect(found.some((p) => /select #probe-select cuts "Backend error \(HTTP 500\)"/.test(p))).toBe(true);
  expect(found.some((p) => /page scrolls sideways/.test(p))).toBe(true);
  expect(found.some((p) => /#probe-empty.* is an empty card/.test(p))).toBe(true);
  expect(found.some((p) => /heading <h3> "Detail —" ends with nothing after its dash/.test(p))).toBe(true);
  expect(found.some((p) => /<pre> "\{"field": "x+.*: its content is \d+ px wide in a \d+ px box/.test(p))).toBe(true);
  expect(found.some((p) => /<div#probe-wide> "" reaches past the edge of <section#probe-past/.test(p))).toBe(true);
  // A block that scrolls inside its card is held: nothing about the second probe.
  expect(found.filter((p) => /probe-scrolls|"y{10}/.test(p))).toEqual([]);
  const split = await splitCodes(page, [...clinics, { slug: 'clinica-sonda', nome: 'Clínica Sonda' }]);
  expect(split).toContain('"clinica-b" breaks across lines in <code>');
  expect(split).toContain('slug "clinica-sonda" breaks across lines in <p>');
  const words = await wording(page, clinics);
  expect(words).toContain('raw code "http500" shown in <span.badge>');
  expect(words).toContain('raw code "active" shown in <span.badge>');
  expect(words.some((w) => w.startsWith(`clinic "${appliance.tenant}" without its name "${nome}" in <h2>`))).toBe(true);
});
