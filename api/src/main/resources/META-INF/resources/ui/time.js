// Time, always with its zone. The reader picks the zone times are shown in (the header's switch, kept in
// localStorage): UTC, the browser's, or the job's (a cron schedule's zone; where a page has no job, or the job no
// zone, the browser's). Instants are formatted with Intl.DateTimeFormat, relative times ("in 5 h") beside them.
import { h } from './dom.js';

const KEY = 'punctual.zone';
export const CHOICES = [
  ['utc', 'UTC'],
  ['browser', "the browser's zone"],
  ['job', "the job's zone"],
];

export function browserZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The reader's choice: utc, browser or job. */
export function preference() {
  const v = localStorage.getItem(KEY);
  return CHOICES.some(([k]) => k === v) ? v : 'browser';
}

export function setPreference(v) {
  localStorage.setItem(KEY, v);
}

/** A job's own zone: its cron schedule's, or the zone of its dates; null where it has none. */
export function jobZone(job) {
  const s = job && job.schedule;
  if (!s) return null;
  if (s.type === 'cron') return s.timezone || 'UTC';
  if (s.type === 'dates') return (s.dates || []).map((d) => d && d.zone).find(Boolean) || null;
  return null;
}

// The zone of the job the page is about (set by its page, cleared on each new page).
let pageJobZone = null;
export function setPageZone(zone) {
  pageJobZone = zone || null;
}

/** The zone to show times in: the reader's choice, the job's zone given (or the page's job's) for "job". */
export function shownZone(jobsZone) {
  switch (preference()) {
    case 'utc':
      return 'UTC';
    case 'job':
      return jobsZone || pageJobZone || browserZone();
    default:
      return browserZone();
  }
}

const formats = new Map();
function parts(ms, zone) {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formats.set(zone, f);
  }
  const o = {};
  for (const p of f.formatToParts(ms)) o[p.type] = p.value;
  if (o.hour === '24') o.hour = '00';
  return o;
}

/** The zone's short name at that instant: UTC, EST, GMT+1. */
export function zoneName(ms, zone) {
  return zone === 'UTC' ? 'UTC' : parts(ms, zone).timeZoneName;
}

/** An instant as wall-clock time in a zone, to the second, without the zone: 2026-11-25 07:04:05. */
export function wall(iso, zone) {
  const p = parts(new Date(iso).getTime(), zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** An instant in a zone, with its zone: 2026-11-25 07:04:05 CET. */
export function when(iso, zone = shownZone()) {
  if (!iso) return '';
  return `${wall(iso, zone)} ${zoneName(new Date(iso).getTime(), zone)}`;
}

/** How far an instant is from now, in words: "in 5 h", "3 min ago", "now". */
export function relative(iso, now = Date.now()) {
  const d = new Date(iso).getTime() - now;
  const a = Math.abs(d);
  let n;
  if (a < 1000) return 'now';
  if (a < 60_000) n = `${Math.round(a / 1000)} s`;
  else if (a < 3_600_000) n = `${Math.floor(a / 60_000)} min`;
  else if (a < 48 * 3_600_000) n = `${Math.floor(a / 3_600_000)} h`;
  else if (a < 60 * 86_400_000) n = `${Math.floor(a / 86_400_000)} d`;
  else if (a < 730 * 86_400_000) n = `${Math.floor(a / (30 * 86_400_000))} mo`;
  else n = `${Math.floor(a / (365 * 86_400_000))} y`;
  return d > 0 ? `in ${n}` : `${n} ago`;
}

/**
 * A time element: the instant in the shown zone with the zone's name, how far from now on a muted line below, and
 * on hover the exact instant in UTC and the zone's full name. `zone`: the job's zone, for rows of several jobs.
 */
export function time(iso, jobsZone) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  const zone = shownZone(jobsZone);
  return h(
    'span',
    { class: 'when' },
    h('time', { datetime: iso, title: `${new Date(iso).toISOString()} · ${zone}` }, when(iso, zone)),
    h('span', { class: 'rel', 'data-rel': iso }, relative(iso)),
  );
}

// Relative times move on while a page stays open.
setInterval(() => {
  if (document.hidden) return;
  const now = Date.now();
  document.querySelectorAll('[data-rel]').forEach((el) => {
    el.textContent = relative(el.dataset.rel, now);
  });
}, 15_000);

/** The zone's offset from UTC at an instant, in ms (wall clock minus UTC). */
function offset(ms, zone) {
  const p = parts(ms, zone);
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * A datetime-local input's value (2026-11-25T07:04 or with :05 seconds) read as wall-clock time in `zone`: the
 * instant, as RFC 3339 in UTC. A time a DST gap skips is read with the offset from before the gap.
 */
export function fromInput(value, zone) {
  if (!value) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(value);
  if (!m) return undefined;
  const guess = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] || 0));
  const before = offset(guess, zone);
  let t = guess - before;
  const after = offset(t, zone);
  if (after !== before && offset(guess - after, zone) === after) t = guess - after;
  return new Date(t).toISOString();
}

/** An instant as a datetime-local input's value in `zone` (to the second). */
export function toInput(iso, zone) {
  return iso ? wall(iso, zone).replace(' ', 'T') : '';
}
