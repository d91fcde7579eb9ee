// The API from the tests' side (node's fetch), to set up what a test looks at faster than through the form:
// binaries uploaded, jobs created, runs triggered and waited for. The dashboard itself is driven in the browser.
import { before } from 'node:test';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { API } from './browser.mjs';

export async function call(method, path, body) {
  const r = await fetch(`${API}${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  const json = text ? JSON.parse(text) : null;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return json;
}

/** Uploads a file as a binary (or finds the same one uploaded before); its id. */
export async function binary(path) {
  const bytes = readFileSync(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const b = await call('POST', '/v1/binaries', { name: basename(path), sha256, size: bytes.length });
  const headers = Object.fromEntries(Object.entries(b.uploadHeaders || {}).filter(([k]) => k.toLowerCase() !== 'content-length'));
  const put = await fetch(b.uploadUrl, { method: 'PUT', headers, body: bytes });
  if (!put.ok) throw new Error(`upload: ${put.status}`);
  return b.id;
}

/** Polls `read` until `ok` holds of its answer (every 250 ms, up to `ms`); the answer. */
export async function until(read, ok, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`not so after ${ms} ms: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The job's runs due by now, newest first, as its page lists them. */
export async function runs(jobId) {
  return (await call('GET', `/v1/jobs/${jobId}/runs?limit=100`)).items;
}

const FINAL = new Set(['SUCCEEDED', 'DEAD', 'CANCELLED', 'SKIPPED']);

/** Waits until `n` runs of the job have ended; its runs. */
export async function ended(jobId, n) {
  return until(() => runs(jobId), (rs) => rs.filter((r) => FINAL.has(r.state)).length >= n);
}

/** The wall-clock time of an instant in a zone, as the dashboard writes it: 2026-11-29 03:30:00. */
export function wall(iso, zone) {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
    second: '2-digit', hourCycle: 'h23',
  }).formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour === '24' ? '00' : p.hour}:${p.minute}:${p.second}`;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A daily hour (UTC) about half a day from now: a job firing at it fires during no test, whenever the tests run.
 * With `pastRange`, a backfill's range holding exactly its `n` occurrences before yesterday.
 */
export function farHour() {
  return (new Date().getUTCHours() + 12) % 24;
}

export function pastRange(hour, n) {
  const last = new Date(Date.now() - DAY);
  last.setUTCHours(hour, 0, 0, 0);
  if (last.getTime() > Date.now() - DAY) last.setTime(last.getTime() - DAY);
  return { from: new Date(last.getTime() - (n - 1) * DAY - HOUR).toISOString(), to: new Date(last.getTime() + HOUR).toISOString() };
}

/**
 * Two jobs of {@code prefix}'s for the pages of the calling file's tests to show, made before those tests (a
 * {@code before} hook) with the binary PUNCTUAL_BINARY names: a daily one at a far hour (it fires during no test;
 * {@code fields} added to it) with three backfilled runs that succeeded on days before yesterday, and a one-shot one
 * whose only run is dead. The object returned holds them once those runs are there: { daily, dead, backfilled,
 * deadRun }.
 */
export function dailyAndDead(prefix, fields = {}) {
  const made = {};
  before(async () => {
    const bin = await binary(process.env.PUNCTUAL_BINARY);
    const hour = farHour();
    const daily = await call('POST', '/v1/jobs', {
      name: `${prefix}-daily`, binaryId: bin, schedule: { type: 'cron', expression: `0 ${hour} * * *`, timezone: 'UTC' },
      ...fields,
    });
    const dead = await call('POST', '/v1/jobs', { name: `${prefix}-dies`, binaryId: bin, schedule: { type: 'now' }, args: ['3'], maxAttempts: 1 });
    await call('POST', `/v1/jobs/${daily.id}/backfill`, pastRange(hour, 3));
    const backfilled = await until(() => runs(daily.id), (rs) => rs.length === 3 && rs.every((r) => r.state === 'SUCCEEDED'));
    const [deadRun] = await until(() => runs(dead.id), (rs) => rs[0] && rs[0].state === 'DEAD');
    Object.assign(made, { daily, dead, backfilled, deadRun });
  });
  return made;
}
