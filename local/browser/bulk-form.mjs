// Bulk actions and the whole job form (issue 37), imported by dashboard.test.mjs: dead letters retried as a
// selection, jobs paused and resumed as one, each row saying how its own went; every job field in the form, a job
// saved unchanged kept at its version, and errors the API names landing on their fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, shot, usingBrowser } from './browser.mjs';
import { call, binary, until, runs } from './api.mjs';

const TAG = Date.now().toString(36);
let page;
let errors;
let bin;

usingBrowser(async (opened) => {
  ({ page, errors } = opened);
  bin = await binary(process.env.PUNCTUAL_BINARY);
});

const job = (name, more) => call('POST', '/v1/jobs', { name, binaryId: bin, ...more });

test('dead letters are retried as a selection, a few at a time, each row saying how its own retry went', async () => {
  const dying = [];
  for (const n of [1, 2, 3]) dying.push(await job(`ui-bulk-dead-${TAG}-${n}`, { schedule: { type: 'now' }, args: ['3'], maxAttempts: 1 }));
  const dead = [];
  for (const j of dying) dead.push((await until(() => runs(j.id), (rs) => rs[0] && rs[0].state === 'DEAD'))[0]);

  await page.goto(`${API}/ui/#/dead-letters`);
  const pick = (j, r) => page.getByLabel(`Select run ${r.runId} of ${j.name}`, { exact: true });
  await pick(dying[2], dead[2]).waitFor();
  // Select all, then none.
  await page.getByLabel('Select all', { exact: true }).check();
  const boxes = page.locator('tbody input.pick');
  assert.deepEqual([...new Set(await boxes.evaluateAll((bs) => bs.map((b) => b.checked)))], [true]);
  await page.getByLabel('Select all', { exact: true }).uncheck();
  assert.deepEqual([...new Set(await boxes.evaluateAll((bs) => bs.map((b) => b.checked)))], [false]);

  for (let i = 0; i < 3; i++) await pick(dying[i], dead[i]).check();
  await page.getByText('3 selected').waitFor();
  // The third one's job is deleted meanwhile: the API refuses to retry its run, and its row says so.
  await call('DELETE', `/v1/jobs/${dying[2].id}`);
  await page.getByRole('button', { name: 'Retry selected' }).click();
  await page.getByRole('status').filter({ hasText: 'Retry: 2 done, 1 failed' }).waitFor();
  const row = (r) => page.locator('tbody tr', { has: page.locator(`a[href="#/jobs/${r.jobId}/runs/${encodeURIComponent(r.runId)}"]`) });
  for (const i of [0, 1]) assert.match(await row(dead[i]).locator('.outcome').innerText(), /^queued again \((QUEUED|SCHEDULED|RUNNING|DEAD|FAILED)\)$/);
  assert.match(await row(dead[2]).locator('.outcome.error').innerText(), /is deleted/);
  await shot(page, 'dead-letters');
  for (const i of [0, 1]) await until(() => runs(dying[i].id), (rs) => rs[0].attempt >= 1 && rs[0].state === 'DEAD' && rs[0].finishedAt !== dead[i].finishedAt);
  assert.deepEqual(errors, []);
});

test('jobs are paused and resumed as a selection, with a note; one that cannot be says why on its row', async () => {
  const prefix = `ui-bulk-${TAG}-`;
  const a = await job(`${prefix}a`, { schedule: { type: 'cron', expression: '0 5 * * *' } });
  const b = await job(`${prefix}b`, { schedule: { type: 'cron', expression: '0 6 * * *' } });
  const c = await job(`${prefix}c`, { schedule: { type: 'now' } });
  await until(() => call('GET', `/v1/jobs/${c.id}`), (j) => j.state === 'COMPLETED');

  await page.goto(`${API}/ui/#/jobs`);
  await page.getByLabel('Name starts with', { exact: true }).fill(prefix);
  await page.getByRole('button', { name: 'Filter' }).click();
  const row = (j) => page.locator('tbody tr', { has: page.getByRole('link', { name: j.name, exact: true }) });
  // The list first drawn unfiltered is replaced by the filtered one: three rows.
  await until(() => page.locator('tbody tr').count(), (n) => n === 3, 10_000);
  await row(c).waitFor();
  await page.getByLabel('Select all', { exact: true }).check();
  await page.getByLabel('Pause note (optional)', { exact: true }).fill('bulk maintenance');
  await page.getByRole('button', { name: 'Pause selected' }).click();
  await page.getByRole('status').filter({ hasText: 'Pause: 2 done, 1 failed' }).waitFor();
  for (const j of [a, b]) {
    await row(j).locator('.badge.PAUSED').waitFor();
    assert.equal(await row(j).locator('.outcome').innerText(), 'paused');
    assert.equal((await call('GET', `/v1/jobs/${j.id}`)).pauseNote, 'bulk maintenance');
  }
  assert.match(await row(c).locator('.outcome.error').innerText(), /only an ACTIVE job can be paused/);

  await page.getByRole('button', { name: 'Resume selected' }).click();
  await page.getByRole('status').filter({ hasText: /^Resume: 2 done, 1 failed/ }).waitFor();
  for (const j of [a, b]) {
    await row(j).locator('.badge.ACTIVE').waitFor();
    assert.equal((await call('GET', `/v1/jobs/${j.id}`)).state, 'ACTIVE');
  }
  assert.equal((await call('GET', `/v1/jobs/${c.id}`)).state, 'COMPLETED');
  assert.deepEqual(errors, []);
});

test('the form covers every job field: a job saved unchanged keeps its version, errors land on their fields', async () => {
  const full = await job(`ui-every-field-${TAG}`, {
    args: ['two words', ' leading space'], env: { LIST: 'a,b', MODE: 'x=y' },
    schedule: { type: 'cron', expression: '15 4 * * 1-5', timezone: 'Asia/Tokyo' },
    timeoutSeconds: 120, maxAttempts: 4, nonRetryableExitCodes: [2, 64],
    jitter: { mode: 'hashed', max: 'PT30S' }, catchUp: { mode: 'latest', maxAge: 'PT6H', maxRuns: 5 },
    overlap: 'queue', maxRunAge: 'PT2H', maxConcurrency: 2, priority: 'low', secrets: { TOKEN: 'first secret' },
    limits: { memoryMb: 256, openFiles: 64 }, labels: { team: 'ui', tier: '2' },
    webhook: { url: 'https://hooks.example.com/punctual', secret: '0123456789abcdef', on: ['DEAD', 'OVERDUE'] },
    expect: { every: 'PT25H' },
  });
  await page.goto(`${API}/ui/#/jobs/${full.id}/edit`);
  await page.getByRole('heading', { name: `Edit ${full.name}` }).waitFor();
  const field = (label) => page.getByLabel(label, { exact: true });
  assert.equal(await field('Jitter').inputValue(), 'hashed');
  assert.equal(await field('Jitter up to').inputValue(), 'PT30S');
  assert.equal(await field('Catch-up of missed runs').inputValue(), 'latest');
  assert.equal(await field('Memory (MiB)').inputValue(), '256');
  assert.equal(await field('Open files').inputValue(), '64');
  assert.equal(await field('Processes').inputValue(), '');
  assert.equal(await field('URL (empty: none)').inputValue(), 'https://hooks.example.com/punctual');
  assert.equal(await field('OVERDUE').isChecked(), true);
  assert.equal(await field('SUCCEEDED').isChecked(), false);
  assert.equal(await field('Expect').inputValue(), 'every');
  assert.equal(await field('At least every').inputValue(), 'PT25H');
  assert.equal(await field('Exit codes not retried').inputValue(), '2, 64');
  assert.match(await page.locator('#f-secrets-hint').innerText(), /TOKEN/);
  await page.locator('#preview li').first().waitFor();

  // Saved as it is: the API sees the same definition and keeps version 1.
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: `Saved ${full.name} (version 1).` }).waitFor();
  const same = await call('GET', `/v1/jobs/${full.id}`);
  assert.deepEqual({ ...same, nextRunAt: full.nextRunAt }, full);

  // Errors the API names land on their fields, dotted paths included; bad JSON is caught before it is sent.
  await page.getByRole('link', { name: 'Edit' }).click();
  await field('Memory (MiB)').fill('999999');
  await field('Signing secret').fill('short');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#f-limits-memoryMb-error').filter({ hasText: /at most/ }).waitFor();
  assert.equal(await field('Memory (MiB)').getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator('#f-webhook-secret-error').innerText(), /16 to 256 characters/);
  await field('Expect').selectOption('by');
  await field('Before each time of').fill('{not json');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#f-expect-by-error').filter({ hasText: /is not JSON/ }).waitFor();

  // Changed through the form, every kind of field.
  await field('Before each time of').fill('{"type": "cron", "expression": "0 7 * * *", "timezone": "Europe/Paris"}');
  await field('Memory (MiB)').fill('512');
  await field('Signing secret').fill('');
  await field('Jitter').selectOption('random');
  await field('Jitter up to').fill('PT1M');
  await field('Exit codes not retried').fill('3');
  await field('FAILED').check();
  await field('Secrets (NAME=value, one per line)').fill('TOKEN=second\nOTHER=x');
  await field('Catch-up of missed runs').selectOption('skip');
  await field('Oldest a run may start').fill('PT3H');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: `Saved ${full.name} (version 2).` }).waitFor();
  const saved = await call('GET', `/v1/jobs/${full.id}`);
  assert.equal(saved.limits.memoryMb, 512);
  assert.equal(saved.limits.openFiles, 64);
  assert.deepEqual(saved.jitter, { mode: 'random', max: 'PT1M' });
  assert.deepEqual(saved.nonRetryableExitCodes, [3]);
  assert.deepEqual(saved.webhook, { url: 'https://hooks.example.com/punctual', on: ['FAILED', 'DEAD', 'OVERDUE'] });
  assert.equal(saved.expect.by.expression, '0 7 * * *');
  assert.deepEqual(saved.secrets, ['OTHER', 'TOKEN']);
  assert.equal(saved.catchUp.mode, 'skip');
  assert.equal(saved.maxRunAge, 'PT3H');
  assert.deepEqual(saved.args, full.args);
  assert.deepEqual(saved.env, full.env);
  assert.deepEqual(saved.labels, full.labels);
  assert.equal(saved.maxConcurrency, 2);

  // Its secrets removed, all of them, and nothing else changed.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Remove all its secrets', { exact: true }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: `Saved ${full.name} (version 3).` }).waitFor();
  const bare = await call('GET', `/v1/jobs/${full.id}`);
  assert.deepEqual(bare.secrets, []);
  assert.deepEqual({ ...bare, secrets: saved.secrets, version: 2, updatedAt: saved.updatedAt, nextRunAt: saved.nextRunAt }, saved);
  assert.deepEqual(errors, []);
});
