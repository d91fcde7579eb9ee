// The dashboard as a user works it, against a local runner (no auth): a job created through the form, its run
// watched to success and its log read, the list, pause and resume, a dead letter retried. Screenshots as it goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, shot, lowContrast, BROWSER_ZONE, usingBrowser } from './browser.mjs';
import { call, until, wall } from './api.mjs';
// The tests of issue 37's dashboard, each with its own browser and jobs: they run before the ones below.
import './zones.mjs';
import './history.mjs';
import './runs.mjs';
import './bulk-form.mjs';
import './layout.mjs';

const BINARY = process.env.PUNCTUAL_BINARY;
// Names of this run's own, so that the script can run again against a runner that keeps the last run's jobs.
const HELLO = `ui-hello-${Date.now().toString(36)}`;
const DIES = `ui-dies-${Date.now().toString(36)}`;
const FOLLOW = `ui-follow-${Date.now().toString(36)}`;
let page;
let errors;

usingBrowser((opened) => {
  ({ page, errors } = opened);
});

test('the page loads its own assets only, with a content security policy', async () => {
  const r = await page.goto(`${API}/`);
  assert.equal(new URL(page.url()).pathname, '/ui/');
  assert.match(r.headers()['content-security-policy'], /script-src 'self'/);
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  assert.deepEqual(errors, []);
});

test('a job is created through the form: binary uploaded, preview as you type, errors on the field', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New job' }).click();
  await page.getByRole('heading', { name: 'New job' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill(HELLO);
  await page.getByLabel('or upload one', { exact: true }).setInputFiles(BINARY);
  await page.getByRole('status').filter({ hasText: 'uploaded' }).waitFor();
  const chosen = await page.getByLabel('A binary you uploaded', { exact: true }).inputValue();
  assert.match(chosen, /^bin_/);

  // A cron the API rejects: its message lands on the expression field, and the preview says why it is empty.
  await page.getByLabel('Cron expression', { exact: true }).fill('61 * * * *');
  const expression = page.getByLabel('Cron expression', { exact: true });
  await page.locator('#f-schedule-expression-error').filter({ hasText: /\S/ }).waitFor();
  assert.equal(await expression.getAttribute('aria-invalid'), 'true');
  await page.getByText('No preview while the schedule has an error.').waitFor();

  // A DST gap: 02:30 does not exist in Berlin on 2099-03-29; the preview marks where it moves. (Far ahead: the
  // preview of a dates schedule refuses one whose every date is past, so a date near now would expire.)
  await page.getByLabel('At a list of times', { exact: true }).check();
  await page.getByLabel('Times', { exact: true }).fill('2099-03-29T02:30:00 Europe/Berlin');
  await page.locator('#preview .badge.dst').filter({ hasText: 'gap-shifted' }).waitFor();

  await page.getByLabel('Cron, in a time zone', { exact: true }).check();
  await page.getByLabel('Cron expression', { exact: true }).fill('0 3 * * *');
  await page.getByLabel('Time zone', { exact: true }).fill('Europe/Paris');
  await page.getByText(`Shown in ${BROWSER_ZONE}; the schedule's clock is Europe/Paris.`).waitFor();
  assert.equal(await page.locator('#preview li').count(), 10);
  await page.getByLabel('Labels (key=value, comma-separated)', { exact: true }).fill('team=ui');
  await shot(page, 'job-form');

  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: HELLO }).waitFor();
  assert.match(await page.locator('dl.facts').innerText(), /every day at 03:00 \(Europe\/Paris\)/);
  // The binary by the name it was uploaded under, not its id.
  const uploaded = BINARY.split('/').pop();
  await page.locator('dl.facts dd', { hasText: `${uploaded} (sha256 ` }).waitFor();
});

test('a triggered run is watched to success, and its log read', async () => {
  await page.getByRole('button', { name: 'Trigger now' }).click();
  // The runs table refreshes on its own.
  const row = page.locator('table tbody tr').first();
  await row.locator('.badge.SUCCEEDED').waitFor({ timeout: 60_000 });
  await shot(page, 'job');
  await row.getByRole('link').click();
  await page.getByRole('heading', { name: /^Run / }).waitFor();
  await page.locator('#following').filter({ hasText: 'complete' }).waitFor();
  assert.match(await page.locator('#log').innerText(), /hello from run \S+ attempt 1/);
  assert.match(await page.locator('dl.facts').innerText(), /Exit code\s+0/);
  await shot(page, 'run');
});

test("a running run's log is followed: output shows while it runs, then the end", async () => {
  // A script that says one thing, waits well past the runner's log shipping interval (DashboardIT sets 1 s), and
  // says another: the first line must be on the page before the second exists.
  const dir = mkdtempSync(join(tmpdir(), 'punctual-follow-'));
  const script = join(dir, `follow-${Date.now().toString(36)}.sh`);
  writeFileSync(script, '#!/bin/sh\necho first line\nsleep 8\necho second line\n', { mode: 0o755 });
  await page.goto(`${API}/ui/#/new`);
  await page.getByLabel('Name', { exact: true }).fill(FOLLOW);
  await page.getByLabel('or upload one', { exact: true }).setInputFiles(script);
  await page.getByRole('status').filter({ hasText: 'uploaded' }).waitFor();
  await page.getByLabel('Now', { exact: true }).check();
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: FOLLOW }).waitFor();
  await page.locator('table tbody tr a').first().click();
  await page.getByRole('heading', { name: /^Run / }).waitFor();
  await page.locator('#log').filter({ hasText: 'first line' }).waitFor({ timeout: 30_000 });
  assert.doesNotMatch(await page.locator('#log').innerText(), /second line/);
  assert.equal(await page.locator('#following').innerText(), 'following…');
  await page.locator('#log').filter({ hasText: 'second line' }).waitFor({ timeout: 30_000 });
  await page.locator('#following').filter({ hasText: 'complete' }).waitFor();
  await page.locator('h1 .badge.SUCCEEDED').waitFor();

  // Done with it: deleted from its page, after the browser's confirmation.
  await page.getByRole('link', { name: `← ${FOLLOW}` }).click();
  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('status').filter({ hasText: `Deleted ${FOLLOW}` }).waitFor();
  const gone = page.locator('tbody tr', { has: page.getByRole('link', { name: FOLLOW, exact: true }) });
  await gone.locator('.badge.DELETED').waitFor();
});

test('the jobs list shows state, schedule in words, last run and labels; filters narrow it', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
  const row = page.locator('tbody tr', { has: page.getByRole('link', { name: HELLO, exact: true }) });
  await row.locator('.badge.SUCCEEDED').waitFor();
  const text = await row.innerText();
  assert.match(text, /ACTIVE/);
  assert.match(text, /every day at 03:00 \(Europe\/Paris\)/);
  assert.match(text, /team=ui/);
  await shot(page, 'jobs');

  await page.getByLabel('Labels', { exact: true }).fill('team=nobody');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No jobs match.').waitFor();
  await page.getByLabel('Labels', { exact: true }).fill('not a selector');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('status').filter({ hasText: 'label' }).waitFor();
  assert.equal(await page.getByLabel('Labels', { exact: true }).getAttribute('aria-invalid'), 'true');
});

test('a job is paused with a note and resumed with a catch-up choice', async () => {
  await page.getByLabel('Labels', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Filter' }).click();
  // The binary's name is read after the job is drawn. Its arrival must leave the buttons alone: one redrawn between
  // a click's press and its release loses the click. Held here until the button is taken, so that it comes after.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/v1/binaries/*', async (route) => {
    await held;
    await route.continue();
  });
  await page.getByRole('link', { name: HELLO, exact: true }).click();
  const pause = await page.getByRole('button', { name: 'Pause…' }).elementHandle();
  release();
  await page.locator('dl.facts').getByText(/sha256/).waitFor();
  await page.unroute('**/v1/binaries/*');
  assert.ok(await pause.evaluate((b) => b.isConnected), "the binary's name redrew the job's buttons");
  await pause.click();
  await page.getByLabel('Note (why, for the next reader)', { exact: true }).fill('maintenance window');
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.locator('h1 .badge.PAUSED').waitFor();
  assert.match(await page.locator('dl.facts').innerText(), /maintenance window/);
  await page.getByRole('button', { name: 'Resume…' }).click();
  await page.getByLabel('Runs missed while paused', { exact: true }).selectOption('skip');
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await page.locator('h1 .badge.ACTIVE').waitFor();
});

test('a job is edited: its new schedule, runs at once and lane saved over the version read, its labels kept', async () => {
  const version = Number(/Version\s+(\d+)/.exec(await page.locator('dl.facts').innerText())[1]);
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { name: `Edit ${HELLO}` }).waitFor();
  assert.equal(await page.getByLabel('Labels (key=value, comma-separated)', { exact: true }).inputValue(), 'team=ui');
  await page.getByLabel('Cron expression', { exact: true }).fill('30 4 * * 1-5');
  await page.locator('#preview li').first().waitFor();
  // Two at once where every run starts anyway is refused, on its field; with queue it is taken.
  await page.getByLabel('Runs at once', { exact: true }).fill('2');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#f-maxConcurrency-error').filter({ hasText: /needs overlap forbid or queue/ }).waitFor();
  await page.getByLabel('While another run runs', { exact: true }).selectOption('queue');
  await page.getByLabel('Lane', { exact: true }).selectOption('high');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: `version ${version + 1}` }).waitFor();
  const facts = await page.locator('dl.facts').innerText();
  assert.match(facts, /04:30/);
  assert.match(facts, /team=ui/);
  assert.match(facts, /Overlap\s+queue/);
  assert.match(facts, /At once\s+at most 2/);
  assert.match(facts, /Lane\s+high/);
  assert.match(facts, new RegExp(`Version\\s+${version + 1}`));
});

test('a backfill creates the runs a past range missed, and says how many', async () => {
  // The job now fires at 04:30 Paris time on weekdays. The range is chosen, not read off the clock: seven days
  // ending at 12:00 UTC (13:00 or 14:00 in Paris, far from 04:30) at least a day ago hold seven 04:30s, five of
  // them on weekdays, whatever today is. Typed to the minute: Chromium shows a time whose seconds are :00 without
  // them, and Playwright refuses a fill that reads back otherwise. Typed in the zone times are shown in: the
  // browser's.
  const to = new Date(Date.now() - 86_400_000);
  to.setUTCHours(12, 0, 0, 0);
  const from = new Date(to.getTime() - 7 * 86_400_000);
  const local = (d) => wall(d.toISOString(), BROWSER_ZONE).slice(0, 16).replace(' ', 'T');
  const backfill = async () => {
    await page.getByRole('button', { name: 'Backfill…' }).click();
    await page.getByLabel(`From (${BROWSER_ZONE})`, { exact: true }).fill(local(from));
    await page.getByLabel('To', { exact: true }).fill(local(to));
    // The job's lane is high (the test before): a backfill is sent to low instead, where it waits behind nothing
    // urgent.
    assert.match(await page.getByLabel('Lane', { exact: true }).innerText(), /the job's \(high\)/);
    await page.getByLabel('Lane', { exact: true }).selectOption('low');
    await page.getByRole('button', { name: 'Create missing runs' }).click();
  };
  await backfill();
  const said = page.getByRole('status').filter({ hasText: /^Backfill: / });
  await said.waitFor();
  const text = await said.innerText();
  const counts = /Backfill: (\d+) run\(s\) created, (\d+) already there/.exec(text);
  assert.ok(counts, text);
  assert.deepEqual([Number(counts[1]), Number(counts[2])], [5, 0], text);
  // Asked again, the same range creates nothing: those runs exist now.
  await backfill();
  await page.getByRole('status').filter({ hasText: 'Backfill: 0 run(s) created, 5 already there' }).waitFor();
});

test('a run that used its attempts is a dead letter, retried from its page', async () => {
  await page.goto(`${API}/ui/#/new`);
  await page.getByLabel('Name', { exact: true }).fill(DIES);
  const hello = page.locator('#f-binaryId option', { hasText: /^hello / }).first();
  await page.getByLabel('A binary you uploaded', { exact: true }).selectOption(await hello.getAttribute('value'));
  await page.getByLabel('Now', { exact: true }).check();
  await page.getByLabel('Arguments (one per line)', { exact: true }).fill('3');
  await page.getByLabel('Attempts', { exact: true }).fill('1');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: DIES }).waitFor();
  const dead = page.locator('table tbody tr', { has: page.locator('.badge.DEAD') }).first();
  await dead.waitFor({ timeout: 60_000 });
  const runPage = await dead.getByRole('link').getAttribute('href');
  const runId = decodeURIComponent(runPage.split('/runs/')[1]);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dead letters' }).click();
  const row = page.locator('tbody tr', { hasText: runId });
  await row.waitFor();
  assert.match(await row.innerText(), /exited with code 3/);
  await row.getByRole('button', { name: /^Retry run/ }).click();
  await page.getByRole('status').filter({ hasText: 'queued again' }).waitFor();
  assert.doesNotMatch(await row.innerText(), /\bDEAD\b/);

  // Its one attempt exits 3 again: dead again, retried from the run's own page this time. The page reads the log
  // as it opens and draws the run again when the log ends; the Retry button drawn first must still be the one on
  // the page then (one redrawn between a click's press and its release loses the click).
  const [job] = runPage.split('/').slice(2, 3);
  await until(
    () => call('GET', `/v1/jobs/${job}/runs/${encodeURIComponent(runId)}`),
    (r) => r.state === 'DEAD' && r.attempt >= 2,
  );
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const isLog = (url) => url.pathname.endsWith('/log');
  await page.route(isLog, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${API}/ui/${runPage}`);
  const retry = await page.getByRole('button', { name: 'Retry', exact: true }).elementHandle();
  // Every drawing of the run draws its facts anew: the first one's going says the redraw has happened.
  const fact = await page.locator('dl.facts dt').first().elementHandle();
  release();
  await page.waitForFunction((el) => !el.isConnected, fact);
  await page.unroute(isLog);
  assert.ok(await retry.evaluate((b) => b.isConnected), "the log's end redrew the run's Retry button");
  await retry.click();
  await page.getByRole('status').filter({ hasText: 'Queued again with a fresh set of attempts.' }).waitFor();
});

test("an action's refresh that lands after the reader has left breaks nothing on the next page", async () => {
  // Found by CI: a backfill's refresh of the job came back after the next test had opened another page, and
  // failed on that page's content. Here the refresh after a pause is held until the reader is elsewhere.
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByRole('link', { name: HELLO, exact: true }).click();
  await page.getByRole('button', { name: 'Pause…' }).waitFor();
  const job = new URL(page.url()).hash.split('/')[2];
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(`**/v1/jobs/${job}`, async (route) => {
    if (route.request().method() === 'GET') await held;
    await route.continue();
  });
  await page.getByRole('button', { name: 'Pause…' }).click();
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  // The refresh draws the job, then reads its runs: that read, or the page's error, says the refresh has landed.
  const landed = Promise.race([
    page.waitForRequest((r) => r.url().includes(`/v1/jobs/${job}/runs?limit=25`)), // the job page's, not the list's
    page.waitForEvent('pageerror'),
  ]);
  release();
  await landed;
  await page.unroute(`**/v1/jobs/${job}`);
  await page.locator('tbody tr', { has: page.getByRole('link', { name: HELLO, exact: true }) }).locator('.badge.PAUSED').waitFor();
  assert.deepEqual(errors, []);
});

test('every form control has a label, and nothing failed on the page', async () => {
  for (const hash of ['#/new', '#/jobs', '#/runs', '#/dead-letters']) {
    await page.goto(`${API}/ui/${hash}`);
    await page.locator('h1').waitFor();
    const unlabelled = await page.$$eval('input, select, textarea', (els) => els
      .filter((e) => e.type !== 'hidden' && e.labels.length === 0 && !e.getAttribute('aria-label'))
      .map((e) => e.outerHTML));
    assert.deepEqual(unlabelled, [], `unlabelled controls on ${hash}`);
  }
  assert.deepEqual(errors, []);
});

test('text keeps 4.5:1 contrast on every page, and the keyboard alone gets from page to page', async () => {
  const pages = ['#/jobs', '#/new', '#/dead-letters', '#/runs'];
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByRole('link', { name: HELLO, exact: true }).click();
  await page.locator('table tbody tr .badge').first().waitFor();
  pages.push(new URL(page.url()).hash);
  await page.locator('table tbody tr a').first().click();
  await page.locator('#following').filter({ hasText: 'complete' }).waitFor();
  pages.push(new URL(page.url()).hash);
  for (const hash of pages) {
    await page.goto(`${API}/ui/${hash}`);
    await page.locator('h1').waitFor();
    await page.locator('main :is(table, form, p.empty, pre.log)').first().waitFor();
    assert.deepEqual(await lowContrast(page), [], `low contrast on ${hash}`);
  }

  // From a fresh load: the first Tab reaches the skip link, which moves focus to the page's content; the main
  // navigation is next in order, and Enter on its links opens their pages.
  await page.goto(`${API}/ui/#/jobs`);
  await page.reload(); // a new document: going to another hash of the same one keeps the focus where it was
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
  assert.equal(new URL(page.url()).hash, '#/jobs', 'the skip link leaves the page where it is');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'New job', "the page's own first link");

  await page.reload();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Punctual');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'New job');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'New job' }).waitFor();
  // Once the new page is drawn, the focus moves to its content, so the next Tab is the form's first field.
  await page.waitForFunction(() => document.activeElement.id === 'main');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'f-name');
  assert.deepEqual(errors, []);
});
