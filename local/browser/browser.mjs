// Debian's Chromium, headless, driven by Playwright's library (its own browser download cannot run here).
// The flags keep Chromium from reaching out to Google's services, which this machine's network refuses.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const API = process.env.PUNCTUAL_URL;
export const SHOTS = process.env.PUNCTUAL_SCREENSHOTS || 'target/screenshots';

export async function open() {
  if (!API) throw new Error('PUNCTUAL_URL is not set: DashboardIT starts a local runner and sets it');
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
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

export async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}
