// The dashboard against a local runner started with --auth: nothing shown without a token, a bad one refused on
// the field, the user's own jobs once signed in, and signing out forgets the token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, shot, usingBrowser } from './browser.mjs';

const TOKEN = process.env.PUNCTUAL_TOKEN;
let page;
let errors;

usingBrowser((opened) => {
  ({ page, errors } = opened);
});

test('without a token the dashboard asks for one, shows no data, and no error: being asked is not one', async () => {
  // The jobs page asks first and is refused (401): its failure must not land in red on the sign-in page.
  const refused = page.waitForResponse((r) => r.url().includes('/v1/jobs') && r.status() === 401);
  await page.goto(`${API}/ui/`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await (await refused).finished();
  await page.waitForLoadState('networkidle');
  assert.equal(await page.locator('table').count(), 0);
  assert.equal(await page.locator('#status').innerText(), '');
  assert.equal(await page.locator('.error:visible, [role=alert]:visible, .problem').filter({ hasText: /\S/ }).count(), 0);
  assert.doesNotMatch(await page.locator('#who').innerText(), /Signed in/);
  await shot(page, 'sign-in');
});

test('a token the API refuses is said so on the field', async () => {
  await page.getByLabel('Bearer token', { exact: true }).fill('not.a.token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#token-error').filter({ hasText: /token/ }).waitFor();
  assert.equal(await page.getByLabel('Bearer token', { exact: true }).getAttribute('aria-invalid'), 'true');
  // The header says nothing of being signed in: the token was refused.
  await page.waitForLoadState('networkidle');
  assert.doesNotMatch(await page.locator('#who').innerText(), /Signed in/);
  assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
});

test("with the user's token, the user's own jobs are listed", async () => {
  await page.getByLabel('Bearer token', { exact: true }).fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  // The heading comes before the list's answer: wait for a row (or the empty note) before reading the names.
  await page.locator('tbody tr, p.empty').first().waitFor();
  const names = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
  assert.deepEqual(names, ['erin-job']);
});

test('signing out forgets the token', async () => {
  assert.match(await page.locator('#who').innerText(), /Signed in/);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('punctual.token')), null);
  assert.deepEqual(errors, []);
});
