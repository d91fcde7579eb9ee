// What a run's and a job's state mean to a reader: lateness only where it means something, a run's origin in
// words, and a job whose last run is dead not shown as a plain success.
import { h, badge, millis } from './dom.js';

/** A run's origin in a word: what it says in place of a lateness counted from a long-past due time. */
export const ORIGIN = { TRIGGERED: 'triggered', BACKFILLED: 'backfilled', REDRIVEN: 'retried', SCHEDULED: 'scheduled' };
const ORIGIN_TITLE = {
  TRIGGERED: 'started by hand (trigger now)',
  BACKFILLED: 'created after its due time, by a backfill or a catch-up: a lateness from its due time means nothing',
  REDRIVEN: 'a dead letter retried: a lateness from its first due time means nothing',
};

export function origin(r) {
  if (!r.origin || r.origin === 'SCHEDULED') return null;
  return h(
    'span',
    { class: `badge origin ${r.origin}`, title: ORIGIN_TITLE[r.origin] || null },
    ORIGIN[r.origin] || r.origin.toLowerCase(),
  );
}

/**
 * Seconds from due to start, where the API says it means something (its `lateness`: null for a backfilled or
 * re-driven run, or one not started). An API without the field: counted here, as before, from the start.
 */
export function latenessMs(r) {
  if (r.lateness !== undefined) return r.lateness === null ? null : r.lateness * 1000;
  return r.startedAt ? new Date(r.startedAt) - new Date(r.scheduledAt) : null;
}

/** The lateness column: the run's origin when it is not a scheduled one, and the lateness when it means something. */
export function lateness(r) {
  const ms = latenessMs(r);
  const o = origin(r);
  const n = ms === null ? null : millis(ms);
  if (o && n) return h('span', { class: 'inline' }, o, n);
  return o || n || '';
}

/** A job's state, with its last run's when that run failed for good: COMPLETED · last run DEAD, in the failure colour. */
export function jobBadge(job, lastRun, title) {
  if (lastRun && lastRun.state === 'DEAD' && job.state !== 'DELETED') {
    return badge(
      `${job.state} failed`,
      title || `The job is ${job.state}; its last run is ${lastRun.state}`,
      `${job.state} · last run ${lastRun.state}`,
    );
  }
  return badge(job.state, title);
}
