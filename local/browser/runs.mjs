// Runs across jobs (issue 37), imported by dashboard.test.mjs: the Runs page's search (states, a due-time range
// typed in the shown zone and sent as UTC instants, runs not yet due).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, shot, BROWSER_ZONE, usingBrowser } from './browser.mjs';
import { until, wall, dailyAndDead } from './api.mjs';

const TAG = Date.now().toString(36);
let page;
let errors;

usingBrowser((opened) => {
  ({ page, errors } = opened);
});
const jobs = dailyAndDead(`ui-runs-${TAG}`);

/** The row of a job's run (run ids are due times: two jobs' runs due at once have the same). */
const rowOf = (job, run) => page.locator('tbody tr', { has: page.locator(`a[href="#/jobs/${job.id}/runs/${encodeURIComponent(run.runId)}"]`) });

/**
 * Searches with the filters as they are: the page is drawn again from its new address, asks the API, and says it is
 * done (aria-busy false) once its answer is drawn. The request asked.
 */
async function search() {
  const asked = page.waitForRequest((r) => r.url().includes('/v1/runs?'));
  await page.getByRole('button', { name: 'Search' }).click();
  const request = await asked;
  await request.response();
  await page.locator('#runs-found[aria-busy="false"]').waitFor();
  return request;
}

/** The input value of a datetime-local field for an instant, in the browser's zone, to the minute. */
const typed = (ms) => wall(new Date(ms).toISOString(), BROWSER_ZONE).slice(0, 16).replace(' ', 'T');

test('runs across jobs: newest due first, narrowed by state, by a due-time range in the shown zone, and with runs not yet due', async () => {
  const { daily, dead, backfilled, deadRun } = jobs;
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
  await page.locator('tbody tr').first().waitFor();
  const dues = async () => page.locator('tbody tr td:nth-child(7) time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
  const first = await dues();
  assert.deepEqual(first, [...first].sort().reverse(), 'newest due first');

  // By state, typed in any case: only dead runs, ours among them, its job named and linked.
  await page.getByLabel('States (comma-separated)', { exact: true }).fill('dead');
  await search();
  assert.match(page.url(), /#\/runs\?state=DEAD$/);
  const deadRow = rowOf(dead, deadRun);
  // The page drawn from the new address replaces the one before: only dead runs, ours among them.
  const states = async () => [...new Set(await page.locator('tbody tr td:nth-child(3)').allInnerTexts())];
  await until(states, (s) => s.length === 1 && s[0] === 'DEAD', 10_000);
  await deadRow.waitFor();
  assert.equal(await deadRow.getByRole('link', { name: dead.name }).getAttribute('href'), `#/jobs/${dead.id}`);
  await shot(page, 'runs');

  // A range around the middle backfilled run, typed in the browser's zone: sent as UTC instants.
  const middle = Date.parse(backfilled[1].scheduledAt);
  await page.getByLabel('States (comma-separated)', { exact: true }).fill('');
  await page.getByLabel(`Due from (${BROWSER_ZONE})`, { exact: true }).fill(typed(middle - 3_600_000));
  await page.getByLabel(`Due until (${BROWSER_ZONE})`, { exact: true }).fill(typed(middle + 3_600_000));
  const q = new URL((await search()).url()).searchParams;
  assert.equal(q.get('from'), new Date(middle - 3_600_000).toISOString());
  assert.equal(q.get('to'), new Date(middle + 3_600_000).toISOString());
  await rowOf(daily, backfilled[1]).waitFor();
  for (const d of await dues()) assert.ok(Math.abs(Date.parse(d) - middle) <= 3_600_000, d);
  assert.equal(await rowOf(daily, backfilled[0]).count(), 0);

  // Runs not yet due: the daily job's next one, only with the box ticked.
  await page.getByLabel(`Due from (${BROWSER_ZONE})`, { exact: true }).fill('');
  await page.getByLabel(`Due until (${BROWSER_ZONE})`, { exact: true }).fill('');
  await page.getByLabel('States (comma-separated)', { exact: true }).fill('SCHEDULED');
  await search();
  const pending = page.locator('tbody tr', { has: page.getByRole('link', { name: daily.name }) });
  assert.equal(await pending.count(), 0);
  await page.getByLabel('Include runs not yet due', { exact: true }).check();
  await search();
  await pending.first().waitFor();
  const due = await pending.first().locator('td:nth-child(7) time').getAttribute('datetime');
  assert.ok(Date.parse(due) > Date.now(), due);
  assert.deepEqual(errors, []);
});
