// Pictures of runs, drawn as inline SVG (no library; sizes as SVG attributes, colours from app.css): a job's run
// history (duration and lateness per run, and an outcome strip linking to each run), and a run's attempts on a
// timeline. Every figure says in words what it shows (aria-label, title), and the numbers are in the tables beside.
import { h, millis } from './dom.js';
import { seg } from './api.js';
import { when, time } from './time.js';
import { latenessMs, ORIGIN } from './runinfo.js';

const SVG = 'http://www.w3.org/2000/svg';
const SLOTS = 25;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children)
    if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function durationMs(r) {
  return r.startedAt && r.finishedAt ? new Date(r.finishedAt) - new Date(r.startedAt) : null;
}

/** Bars of one measure per run (oldest left); a run without that measure has none, and says why on hover. */
function bars(label, runs, value, why, cls) {
  const values = runs.map(value);
  const known = values.filter((v) => v !== null);
  const max = Math.max(0, ...known);
  const said = known.length ? `up to ${millis(max)}` : 'none';
  const H = 50;
  const W = 12;
  // Room for a page of runs: a few runs are a few bars at the left, not a few walls.
  const slots = Math.max(runs.length, SLOTS);
  const svg = s('svg', {
    class: `bars ${cls}`,
    viewBox: `0 0 ${slots * W} ${H}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `${label} of ${runs.length} runs, oldest to newest: ${said}`,
  });
  svg.append(s('line', { x1: 0, x2: slots * W, y1: H - 0.5, y2: H - 0.5, class: 'axis' }));
  runs.forEach((r, i) => {
    const v = values[i];
    const height = v === null ? 0 : Math.max(1.5, max ? (v / max) * (H - 2) : 1.5);
    svg.append(
      s(
        'rect',
        {
          x: i * W + 2,
          width: W - 4,
          y: H - height,
          height,
          class: v === null ? 'none' : `bar ${r.state}`,
          'data-run': r.runId,
        },
        s('title', {}, `${when(r.scheduledAt)}: ${v === null ? why(r) : millis(v)}`),
      ),
    );
  });
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, h('strong', {}, label), h('span', { class: 'muted' }, ` ${said}`)),
    svg,
  );
}

/** A job's listed runs (newest first, as the API lists them) as a chart of duration and lateness, and outcomes. */
export function history(listed, jobId) {
  if (!listed.length) return h('p', { class: 'muted' }, 'No runs yet: nothing to draw.');
  const runs = [...listed].reverse();
  const notLate = (r) =>
    r.origin && r.origin !== 'SCHEDULED' && latenessMs(r) === null
      ? `${ORIGIN[r.origin] || r.origin}: no lateness`
      : 'not started';
  return h(
    'div',
    { class: 'figures' },
    bars('Duration', runs, durationMs, (r) => (r.startedAt ? 'not finished' : 'not started'), 'duration'),
    bars('Lateness', runs, latenessMs, notLate, 'lateness'),
    h(
      'figure',
      { class: 'chart' },
      h('figcaption', {}, h('strong', {}, 'Outcomes'), h('span', { class: 'muted' }, ' oldest to newest')),
      h(
        'ol',
        { class: 'strip', 'aria-label': 'Outcome of each run, oldest to newest' },
        runs.map((r) => {
          const said = `Run ${r.runId} due ${when(r.scheduledAt)}: ${r.state}`;
          return h(
            'li',
            {},
            h('a', {
              class: `cell ${r.state}`,
              href: `#/jobs/${seg(jobId)}/runs/${seg(r.runId)}`,
              title: said,
              'aria-label': said,
            }),
          );
        }),
      ),
    ),
  );
}

/**
 * A run's attempts on one time axis: each a bar from its start to its end (or now, while it runs), its exit code
 * or error beside it; the past ones from the run's `attempts` (those before the current one, a retried dead
 * letter's included), the current one (the run's own fields) last.
 */
export function timeline(run) {
  const past = Array.isArray(run.attempts) ? run.attempts : [];
  const all = [...past];
  if (run.attempt > 0) {
    all.push({
      attempt: run.attempt,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      exitCode: run.exitCode,
      error: run.error,
      executorId: run.executorId,
      current: true,
    });
  }
  if (!all.length) return h('p', { class: 'muted' }, 'No attempt yet.');
  const now = Date.now();
  const starts = all.map((a) => (a.startedAt ? new Date(a.startedAt).getTime() : null)).filter((x) => x !== null);
  const ends = all.map((a) => (a.finishedAt ? new Date(a.finishedAt).getTime() : now));
  const t0 = starts.length ? Math.min(...starts) : now;
  const span = Math.max(Math.max(...ends) - t0, 1);
  const missing =
    run.attempts === undefined && run.attempt > 1
      ? h('p', { class: 'muted' }, `Attempts 1 to ${run.attempt - 1}: this API does not list past attempts.`)
      : null;
  return h(
    'div',
    {},
    missing,
    h(
      'ol',
      { class: 'timeline', 'aria-label': 'Attempts, first to last' },
      all.map((a) => {
        const start = a.startedAt ? new Date(a.startedAt).getTime() : null;
        const end = a.finishedAt ? new Date(a.finishedAt).getTime() : now;
        const outcome = !a.finishedAt ? 'running' : a.exitCode === 0 && !a.error ? 'ok' : 'bad';
        const x = start === null ? 0 : ((start - t0) / span) * 1000;
        const w = start === null ? 0 : Math.max(((end - start) / span) * 1000, 4);
        const words = [
          a.finishedAt
            ? a.exitCode !== null && a.exitCode !== undefined
              ? `exit ${a.exitCode}`
              : 'no exit code'
            : start
              ? 'running'
              : 'not started',
          a.error || null,
          start && a.finishedAt ? millis(end - start) : null,
          a.executorId ? `on ${a.executorId}` : null,
        ]
          .filter(Boolean)
          .join(' · ');
        return h(
          'li',
          { class: `attempt ${outcome}${a.current ? ' current' : ''}` },
          h('span', { class: 'which' }, `Attempt ${a.attempt}${a.current ? ' (this one)' : ''}`),
          s(
            'svg',
            { viewBox: '0 0 1000 14', preserveAspectRatio: 'none', class: 'track', 'aria-hidden': 'true' },
            s('rect', { x: 0, y: 6, width: 1000, height: 2, class: 'rail' }),
            start === null ? null : s('rect', { x, y: 1, width: w, height: 12, rx: 2, class: `span ${outcome}` }),
          ),
          h('span', { class: 'what' }, a.startedAt ? time(a.startedAt) : '', ' ', words),
        );
      }),
    ),
  );
}
