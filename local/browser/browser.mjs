// Debian's Chromium, headless, driven by Playwright's library (its own browser download cannot run here).
// The flags keep Chromium from reaching out to Google's services, which this machine's network refuses.
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const API = process.env.PUNCTUAL_URL;
export const SHOTS = process.env.PUNCTUAL_SCREENSHOTS || 'target/screenshots';

/**
 * A browser on a fresh page. Its time zone is Europe/Berlin unless told otherwise: not UTC, so that a time shown
 * without its zone, or in the wrong one, shows.
 */
export const BROWSER_ZONE = 'Europe/Berlin';

export async function open({ timezoneId = BROWSER_ZONE } = {}) {
  if (!API) throw new Error('PUNCTUAL_URL is not set: DashboardIT starts a local runner and sets it');
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, timezoneId });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  // Anything the page throws, or logs as an error, fails the test at the end: a broken page is not a passing one.
  const errors = [];
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // A 401 or 4xx answer the page handles is logged by Chromium as a failed resource; the page's own errors are not.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  return { browser, page, errors };
}

/**
 * A browser of {@link open}'s for the tests of the file that calls this: opened before them, then handed to `ready`
 * ({ browser, page, errors }) with the file's own set-up; closed after them.
 */
export function usingBrowser(ready) {
  let browser;
  before(async () => {
    const opened = await open();
    browser = opened.browser;
    await ready(opened);
  });
  after(async () => {
    await browser?.close();
  });
}

export async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/**
 * Text whose colour has less than 4.5:1 contrast (WCAG AA for normal text) against the background it is drawn on:
 * every visible element with text of its own, its colour against the first opaque background behind it (a
 * translucent one blended over that). Returns "ratio text (selector)" for each, so a failure says where.
 */
export async function lowContrast(page) {
  return page.evaluate(() => {
    const rgba = (s) => (s.match(/[\d.]+/g) || []).map(Number).concat([1]).slice(0, 4);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
    };
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      if (!own || !el.getClientRects().length) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || Number(style.opacity) < 1) continue;
      const bg = background(el);
      const fg = over(rgba(style.color), bg);
      const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      if (ratio < 4.5) out.push(`${ratio.toFixed(2)} "${el.textContent.trim().slice(0, 40)}" (${el.tagName.toLowerCase()}.${el.className})`);
    }
    return out;
  });
}
