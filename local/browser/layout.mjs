// The layout (issue 37), imported by dashboard.test.mjs: every page from 360 to 1600 px wide without sideways
// scrolling of the page itself (a wide table scrolls in its own box), dates on one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, shot, usingBrowser } from './browser.mjs';
import { dailyAndDead } from './api.mjs';

const TAG = Date.now().toString(36);
let page;
let errors;

usingBrowser((opened) => {
  ({ page, errors } = opened);
});
// A long name and long labels: what a narrow page has to fit.
const jobs = dailyAndDead(`ui-layout-${TAG}`, {
  name: `ui-layout-${TAG}-a-rather-long-job-name-that-has-to-fit-somewhere`,
  labels: { team: 'dashboard-and-command-line', service: 'nightly-reconciliation-of-everything' },
});

test('no page scrolls sideways from 360 to 1600 px wide; tables scroll in their own box; dates stay on one line', async () => {
  const { daily, dead, backfilled, deadRun } = jobs;
  const pages = ['#/jobs', '#/new', '#/runs', '#/dead-letters', `#/jobs/${daily.id}`, `#/jobs/${daily.id}/edit`,
    `#/jobs/${daily.id}/runs/${encodeURIComponent(backfilled[0].runId)}`, `#/jobs/${dead.id}/runs/${encodeURIComponent(deadRun.runId)}`];
  const wide = [];
  for (const width of [360, 768, 1024, 1400, 1600]) {
    await page.setViewportSize({ width, height: 900 });
    for (const hash of pages) {
      await page.goto(`${API}/ui/${hash}`);
      await page.locator('h1').waitFor();
      await page.locator('main :is(table, form, p.empty, pre.log, .problem)').first().waitFor();
      await page.locator('main :is(time, .problem)').first().waitFor();
      const [scroll, inner] = await page.evaluate(() => [document.scrollingElement.scrollWidth, innerWidth]);
      if (scroll > inner) wide.push(`${hash} at ${width}: ${scroll} > ${inner}`);
      if (width >= 1400) {
        // A date on one line: its box no taller than one line of its text.
        const wrapped = await page.locator('main time').evaluateAll((ts) => ts
          .filter((t) => t.getBoundingClientRect().height > parseFloat(getComputedStyle(t).lineHeight) * 1.5)
          .map((t) => t.textContent));
        if (wrapped.length) wide.push(`${hash} at ${width}: dates wrapped: ${wrapped.join(', ')}`);
      }
    }
    if (width === 360) {
      await page.goto(`${API}/ui/#/jobs/${daily.id}`);
      await page.locator('main table').waitFor();
      await shot(page, 'narrow-job');
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
  assert.deepEqual(wide, []);
  assert.deepEqual(errors, []);
});
