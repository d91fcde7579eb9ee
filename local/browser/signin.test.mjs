// The dashboard against a local runner started with --auth: nothing shown without a token, a bad one refused on
// the field, the user's own jobs once signed in, and signing out forgets the token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { API, open, shot } from './browser.mjs';

const TOKEN = process.env.PUNCTUAL_TOKEN;
let browser;
let page;
let errors;

before(async () => {
  ({ browser, page, errors } = await open());
});

after(async () => {
  await browser?.close();
});

test('without a token the dashboard asks for one and shows no data', async () => {
  await page.goto(`${API}/ui/`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(await page.locator('table').count(), 0);
  await shot(page, 'sign-in');
});

test('a token the API refuses is said so on the field', async () => {
  await page.getByLabel('Bearer token', { exact: true }).fill('not.a.token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#token-error').filter({ hasText: /token/ }).waitFor();
  assert.equal(await page.getByLabel('Bearer token', { exact: true }).getAttribute('aria-invalid'), 'true');
});

test("with the user's token, the user's own jobs are listed", async () => {
  await page.getByLabel('Bearer token', { exact: true }).fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  // The heading comes before the list's answer: wait for a row (or the empty note) before reading the names.
  await page.locator('tbody tr, p.empty').first().waitFor();
  const names = await page.locator('tbody tr td:first-child').allInnerTexts();
  assert.deepEqual(names, ['erin-job']);
});

test('signing out forgets the token', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.goto(`${API}/ui/#/jobs`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('punctual.token')), null);
  assert.deepEqual(errors, []);
});
