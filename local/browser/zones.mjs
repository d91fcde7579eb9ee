// Time and state (issue 37), imported by dashboard.test.mjs: every time with its zone and the header's switch
// between zones; a job whose last run is dead. The jobs are made through the API (the form has its own tests),
// with names of this run's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, BROWSER_ZONE, usingBrowser } from './browser.mjs';
import { call, binary, until, runs, wall } from './api.mjs';

const TAG = Date.now().toString(36);
const NY = 'America/New_York';
let page;
let errors;
let bin;
const jobs = {};

/** An instant as the dashboard shows it in a zone: its wall-clock time and the zone's short name. */
function shown(iso, zone) {
  if (zone === 'UTC') return `${wall(iso, 'UTC')} UTC`;
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' })
    .formatToParts(new Date(iso)).find((p) => p.type === 'timeZoneName').value;
  return `${wall(iso, zone)} ${name}`;
}

usingBrowser(async (opened) => {
  ({ page, errors } = opened);
  bin = await binary(process.env.PUNCTUAL_BINARY);
  const job = (name, more) => call('POST', '/v1/jobs', { name: `${name}-${TAG}`, binaryId: bin, ...more });
  jobs.zone = await job('ui-zone', { schedule: { type: 'cron', expression: '30 2 * * *', timezone: NY } });
  jobs.dies = await job('ui-once-dies', { schedule: { type: 'now' }, args: ['3'], maxAttempts: 1 });
});

test("every time shows its zone; the header's switch shows UTC, the browser's or the job's, and is remembered", async () => {
  const next = jobs.zone.nextRunAt;
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByLabel('Name starts with', { exact: true }).fill(jobs.zone.name);
  await page.getByRole('button', { name: 'Filter' }).click();
  const row = page.locator('tbody tr', { has: page.getByRole('link', { name: jobs.zone.name, exact: true }) });
  const nextCell = row.locator('td').nth(5);
  // The browser's zone first (nothing chosen yet), with how far it is.
  await nextCell.filter({ hasText: shown(next, BROWSER_ZONE) }).waitFor();
  assert.match(await nextCell.locator('.rel').innerText(), /^in \d+ (s|min|h|d)$/);
  assert.equal(await nextCell.locator('time').getAttribute('datetime'), next);

  const zone = page.getByLabel('Times in', { exact: true });
  await zone.selectOption('utc');
  await nextCell.filter({ hasText: shown(next, 'UTC') }).waitFor();
  await zone.selectOption('job');
  await nextCell.filter({ hasText: shown(next, NY) }).waitFor();
  assert.match(await row.innerText(), /every day at 02:30 \(America\/New_York\)/);

  // Remembered: a new load of the page shows the job's zone again.
  await page.reload();
  assert.equal(await page.getByLabel('Times in', { exact: true }).inputValue(), 'job');

  // A job's page: its next fire times, its facts, all in the job's zone, each time with its zone.
  await page.goto(`${API}/ui/#/jobs/${jobs.zone.id}`);
  await page.locator('ol.fires li').first().waitFor();
  const fires = await page.locator('ol.fires li time').allInnerTexts();
  assert.equal(fires.length, 10);
  assert.equal(fires[0], shown(next, NY));
  for (const f of fires) assert.match(f, / E[SD]T$/, f);
  assert.match(await page.locator('dl.facts').innerText(), new RegExp(`Created\\s+${shown(jobs.zone.createdAt, NY)}`));
  await page.getByLabel('Times in', { exact: true }).selectOption('utc');
  await page.locator('ol.fires li time').first().filter({ hasText: shown(next, 'UTC') }).waitFor();
  const all = await page.locator('main time').allInnerTexts();
  assert.ok(all.length >= 12, all.join('\n'));
  for (const t of all) assert.match(t, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, t);
  await page.getByLabel('Times in', { exact: true }).selectOption('browser');
  assert.deepEqual(errors, []);
});

test('a one-shot job whose only run is dead reads as failed, not as a plain success', async () => {
  await until(() => runs(jobs.dies.id), (rs) => rs.length === 1 && rs[0].state === 'DEAD');
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByLabel('Name starts with', { exact: true }).fill(jobs.dies.name);
  await page.getByRole('button', { name: 'Filter' }).click();
  const state = page.locator('tbody tr', { has: page.getByRole('link', { name: jobs.dies.name, exact: true }) }).locator('td').nth(2);
  await state.filter({ hasText: 'COMPLETED · last run DEAD' }).waitFor();
  // The failure colour (read again if the badge was drawn anew meanwhile).
  const colour = () => state.locator('.badge').evaluate((b) => (b.isConnected ? getComputedStyle(b).color : ''));
  await until(colour, (c) => c === 'rgb(164, 14, 38)', 10_000);
  await page.getByRole('link', { name: jobs.dies.name, exact: true }).click();
  await page.locator('h1 .badge').filter({ hasText: 'COMPLETED · last run DEAD' }).waitFor();
  // A job that ran well reads as it is.
  await page.goto(`${API}/ui/#/jobs/${jobs.zone.id}`);
  assert.equal(await page.locator('h1 .badge').innerText(), 'ACTIVE');
});
