import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, test } from './kit/index.ts';
import { e2eEnv } from './support/env.ts';

const env = e2eEnv();
const SCREENSHOTS = process.env.E2E_SCREENSHOTS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');
const WIDTHS = [1440, 1024] as const;

/** `E2E_SCREENSHOTS=1` writes docs/screenshots/screen-<screen>-<width>.png (README and docs/console.md link them). */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.E2E_SCREENSHOTS) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * What does not fit: the page scrolling sideways, a main table wider than its box, or a button of the
 * main area cut off by its scroll box or the window.
 */
async function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth > root.clientWidth) problems.push(`page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
    const main = document.querySelector('main');
    if (!main) return ['no <main>'];
    main.querySelectorAll('table').forEach((table, i) => {
      const box = (table.closest('.table-wrap') as HTMLElement | null) ?? table.parentElement!;
      const label = table.closest('[aria-label]')?.getAttribute('aria-label') ?? `table ${i + 1}`;
      if (box.scrollWidth > box.clientWidth) problems.push(`${label}: scrollWidth ${box.scrollWidth} > clientWidth ${box.clientWidth}`);
    });
    main.querySelectorAll('button, a.btn').forEach((button) => {
      const r = button.getBoundingClientRect();
      if (r.width === 0) return;
      let clip: Element | null = button.parentElement;
      while (clip && clip !== document.body) {
        const style = getComputedStyle(clip);
        if (style.overflowX !== 'visible') {
          const c = clip.getBoundingClientRect();
          if (r.right > c.right + 1 || r.left < c.left - 1) problems.push(`button "${button.textContent?.trim()}" is clipped`);
          break;
        }
        clip = clip.parentElement;
      }
      if (r.right > window.innerWidth + 1) problems.push(`button "${button.textContent?.trim()}" is outside the window`);
    });
    return problems;
  });
}

test('every screen of the navigation fits at 1440 and 1024 pixels: no sideways scrolling, no clipped action', async ({ page }) => {
  await page.goto(`${env.baseUrl}/console/#/keys?tenant=${env.tenant}`);
  await page.getByLabel('Username').fill(env.operator);
  await page.getByLabel('Password').fill(env.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();

  // Links are read from the menu, so screens added later are walked too.
  const nav = page.getByRole('navigation', { name: 'Main' }).locator('a.nav-link');
  const links = await nav.evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href')!, label: a.textContent!.trim() })));
  expect(links.length).toBeGreaterThanOrEqual(5);

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const link of links) {
      await test.step(`${link.label} at ${width}px`, async () => {
        await page.locator(`nav a.nav-link[href="${link.href}"]`).click();
        await expect(page.locator('main h1').first()).toBeVisible();
        // Whatever the screen loads, wait for it to settle (no spinner, tables drawn).
        await expect(page.locator('main .loading')).toHaveCount(0);
        await page.waitForLoadState('networkidle');
        // The widest form of a screen: revoked keys (with their revocation date) shown too.
        const showRevoked = page.locator('main').getByLabel(/^Show revoked/);
        if (await showRevoked.count()) await showRevoked.check();
        expect.soft(await overflow(page), `${link.label} at ${width}px`).toEqual([]);
        const name = link.href.replace(/^#\//, '').replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '') || 'home';
        await shot(page, `screen-${name}-${width}`);
      });
    }
  }
});
