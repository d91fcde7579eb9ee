// Run history (issue 37), imported by dashboard.test.mjs: lateness only where it means something (a backfilled,
// triggered or retried run says what it is); a job's run history drawn; a run's attempts on a timeline. The jobs
// are made through the API, with names of this run's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, shot, usingBrowser } from './browser.mjs';
import { call, binary, until, runs, ended, farHour, pastRange } from './api.mjs';

const hour = farHour();

const TAG = Date.now().toString(36);
let page;
let errors;
let bin;
const jobs = {};

usingBrowser(async (opened) => {
  ({ page, errors } = opened);
  bin = await binary(process.env.PUNCTUAL_BINARY);
  const job = (name, more) => call('POST', '/v1/jobs', { name: `${name}-${TAG}`, binaryId: bin, ...more });
  // Made first, so that their runs go on while the tests before them look at other things.
  jobs.dies = await job('ui-retried', { schedule: { type: 'now' }, args: ['3'], maxAttempts: 1 });
  jobs.tries = await job('ui-tries', { schedule: { type: 'now' }, args: ['2'], maxAttempts: 3 });
  // Daily at an hour half a day from now (it fires during no test). A backfill makes three runs due days ago; a
  // trigger makes one due now.
  jobs.daily = await job('ui-daily', { schedule: { type: 'cron', expression: `0 ${hour} * * *`, timezone: 'UTC' } });
  const filled = await call('POST', `/v1/jobs/${jobs.daily.id}/backfill`, pastRange(hour, 3));
  assert.equal(filled.created.length, 3);
  await call('POST', `/v1/jobs/${jobs.daily.id}/trigger`, {});
  await call('POST', `/v1/jobs/${jobs.daily.id}/trigger`, { args: ['4'] });
});

test('lateness only where it means something: backfilled, triggered and retried runs say what they are', async () => {
  const daily = await ended(jobs.daily.id, 5);
  const byOrigin = (o) => daily.filter((r) => r.origin === o);
  assert.equal(byOrigin('BACKFILLED').length, 3, JSON.stringify(daily));
  assert.equal(byOrigin('TRIGGERED').length, 2, JSON.stringify(daily));
  await page.goto(`${API}/ui/#/jobs/${jobs.daily.id}`);
  const row = (r) => page.locator('tbody tr', { has: page.locator(`a[href$="/runs/${encodeURIComponent(r.runId)}"]`) });
  await row(daily[0]).waitFor();
  const lateness = async (r) => (await row(r).locator('td').nth(4).innerText()).trim();
  for (const r of byOrigin('BACKFILLED')) assert.equal(await lateness(r), 'backfilled');
  for (const r of byOrigin('TRIGGERED')) assert.match(await lateness(r), /^triggered\s*\d+(\.\d)? m?s$/);
  await shot(page, 'job-history');

  // A dead letter retried: its lateness would count from its first due time; it says "retried" instead.
  const [dead] = await until(() => runs(jobs.dies.id), (rs) => rs[0] && rs[0].state === 'DEAD');
  await call('POST', `/v1/jobs/${jobs.dies.id}/runs/${dead.runId}/retry`);
  await until(() => runs(jobs.dies.id), (rs) => rs[0].state === 'DEAD' && rs[0].origin === 'REDRIVEN');
  await page.goto(`${API}/ui/#/jobs/${jobs.dies.id}/runs/${encodeURIComponent(dead.runId)}`);
  await page.locator('h1 .badge.origin').filter({ hasText: 'retried' }).waitFor();
  assert.match(await page.locator('dl.facts').innerText(), /Lateness\s+retried\n/);
  assert.deepEqual(errors, []);
});

test("a job's page draws its run history: duration and lateness per run, and an outcome strip linking to each", async () => {
  const daily = await ended(jobs.daily.id, 5);
  await page.goto(`${API}/ui/#/jobs/${jobs.daily.id}`);
  const duration = page.getByRole('img', { name: /^Duration of 5 runs, oldest to newest/ });
  await duration.waitFor();
  assert.equal(await duration.locator('rect.bar').count(), 5);
  // Lateness: only the two triggered runs have one; the backfilled ones say why not.
  const late = page.getByRole('img', { name: /^Lateness of 5 runs/ });
  assert.equal(await late.locator('rect.bar').count(), 2);
  const why = await late.locator('rect.none title').allTextContents();
  assert.equal(why.length, 3);
  for (const w of why) assert.match(w, /backfilled: no lateness$/);

  const strip = page.getByRole('list', { name: 'Outcome of each run, oldest to newest' });
  const cells = strip.getByRole('link');
  assert.equal(await cells.count(), 5);
  const said = await cells.evaluateAll((as) => as.map((a) => a.getAttribute('aria-label')));
  // Oldest first: the runs as listed (newest first), reversed. The one triggered with exit code 4 is the newest.
  assert.deepEqual(said.map((s) => s.split(' ')[1]), daily.map((r) => r.runId).reverse());
  assert.match(said[4], /: DEAD$/);
  assert.equal(await cells.nth(4).getAttribute('class'), 'cell DEAD');
  for (const s of said.slice(0, 4)) assert.match(s, /: SUCCEEDED$/);
  await page.locator('.history').screenshot({ path: `${process.env.PUNCTUAL_SCREENSHOTS || 'target/screenshots'}/run-history.png` });
  await cells.nth(4).click();
  await page.getByRole('heading', { name: `Run ${daily[0].runId}` }).waitFor();
});

test("a run's page draws its attempts on a timeline, each with its exit code, the current one last", async () => {
  const [run] = await until(() => runs(jobs.tries.id), (rs) => rs[0] && rs[0].state === 'DEAD');
  assert.equal(run.attempt, 3);
  assert.equal(run.attempts.length, 2, JSON.stringify(run));
  await page.goto(`${API}/ui/#/jobs/${jobs.tries.id}/runs/${encodeURIComponent(run.runId)}`);
  const attempts = page.getByRole('list', { name: 'Attempts, first to last' }).getByRole('listitem');
  await attempts.first().waitFor();
  assert.equal(await attempts.count(), 3);
  const texts = await attempts.allInnerTexts();
  texts.forEach((t, i) => {
    assert.match(t, new RegExp(`^Attempt ${i + 1}${i === 2 ? ' \\(this one\\)' : ''}`));
    assert.match(t, /exit 2 · exited with code 2/);
  });
  // Each bar starts after the one before it ended: the retries' waits show as gaps.
  const bars = await page.locator('ol.timeline rect.span').evaluateAll((rs) => rs.map((r) => [Number(r.getAttribute('x')), Number(r.getAttribute('width'))]));
  assert.equal(bars.length, 3);
  for (let i = 1; i < 3; i++) assert.ok(bars[i][0] >= bars[i - 1][0] + bars[i - 1][1] - 1, JSON.stringify(bars));
  await shot(page, 'run-attempts');
  assert.deepEqual(errors, []);
});
