// One run: its facts, and an attempt's log, followed while the attempt runs (the API holds each read up to 20 s
// until new output or the end, so following costs a request per chunk, not a poll a second).
import { api, seg } from './api.js';
import { h, badge, say, between, field } from './dom.js';
import { time, jobZone, setPageZone } from './time.js';
import { lateness, origin } from './runinfo.js';
import { timeline } from './history.js';

const FINAL = new Set(['SUCCEEDED', 'DEAD', 'CANCELLED', 'SKIPPED']);

export async function runPage(main, jobId, runId) {
  const base = `/v1/jobs/${seg(jobId)}/runs/${seg(runId)}`;
  const [run, job] = await Promise.all([api.get(base), api.get(`/v1/jobs/${seg(jobId)}`).catch(() => null)]);
  setPageZone(jobZone(job));
  const title = h('h1');
  const attempts = h('div', { id: 'attempts' });
  const facts = h('dl', { class: 'facts' });
  const attempt = h('select', { id: 'attempt' });
  const following = h('span', { class: 'muted', id: 'following', 'aria-live': 'polite' });
  const log = h('pre', { class: 'log', id: 'log', tabindex: 0, 'aria-label': 'Output of the attempt' });
  const actions = h('div', { class: 'actions' });
  main.append(
    h('p', {}, h('a', { href: `#/jobs/${seg(jobId)}` }, `← ${job ? job.name : run.jobName || jobId}`)),
    title,
    actions,
    facts,
    h('h2', { id: 'attempts-h' }, 'Attempts'),
    attempts,
    h('h2', { id: 'log-h' }, 'Log'),
    h('div', { class: 'toolbar' }, field('Attempt', attempt), following),
    log,
  );

  let current = run;
  let controller = null;
  let retryShown = null;

  function draw(r) {
    current = r;
    title.replaceChildren(`Run ${r.runId}`, badge(r.state), origin(r) || '');
    facts.replaceChildren(
      ...[
        ['Job', r.jobName || (job && job.name) || ''],
        ['Due', time(r.scheduledAt)],
        ['Created', r.createdAt ? time(r.createdAt) : ''],
        ['Queued', r.queuedAt ? time(r.queuedAt) : ''],
        ['Launched', r.launchedAt ? time(r.launchedAt) : ''],
        ['Started', time(r.startedAt)],
        ['Finished', time(r.finishedAt)],
        ['Lateness', lateness(r)],
        ['Took', between(r.startedAt, r.finishedAt)],
        ['Attempt', `${r.attempt} of ${r.maxAttempts}`],
        ['Exit code', r.exitCode ?? ''],
        ['Error', r.error || ''],
        ['Executor', r.executorId || ''],
        ['Lane', r.priority ? `${r.priority} (this run's own)` : ''],
        ['Waiting', r.waiting || ''],
        ['Arguments', r.args ? r.args.join(' ') : ''],
        ['Environment', r.env ? Object.keys(r.env).join(', ') : ''],
      ]
        .filter(([, v]) => v !== '')
        .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    );
    attempts.replaceChildren(timeline(r));
    const n = Math.max(r.attempt, 1);
    if (attempt.options.length !== n) {
      const chosen = attempt.value;
      attempt.replaceChildren(...Array.from({ length: n }, (_, i) => h('option', { value: i + 1 }, `${i + 1}`)));
      attempt.value = chosen && Number(chosen) <= n ? chosen : String(n);
    }
    // Drawn again only when it changes: a button redrawn between a click's press and its release loses the click,
    // and the run is drawn again as its log ends.
    if ((r.state === 'DEAD') === retryShown) return;
    retryShown = r.state === 'DEAD';
    actions.replaceChildren(
      retryShown
        ? h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: async () => {
                try {
                  draw(await api.post(`${base}/retry`));
                  say('Queued again with a fresh set of attempts.');
                  follow();
                } catch (e) {
                  say(e.message, true);
                }
              },
            },
            'Retry',
          )
        : '',
    );
  }

  /** Reads the chosen attempt's log from the start, and on while it runs, until it ends or the reader leaves. */
  async function follow() {
    if (controller) controller.abort();
    controller = new AbortController();
    const { signal } = controller;
    log.textContent = '';
    let offset = 0;
    // A run with no attempt yet has no log: asked without an attempt, the API says 404 until one starts.
    const n = current.attempt > 0 ? attempt.value : '';
    try {
      for (;;) {
        following.textContent = 'following…';
        const slice = await api.log(`${base}/log?${n ? `attempt=${n}&` : ''}offset=${offset}&wait=20`, signal);
        log.append(slice.text);
        log.scrollTop = log.scrollHeight;
        offset = slice.offset;
        if (slice.complete) break;
        const r = await api.get(base, { signal });
        if (r.state !== current.state || r.attempt !== current.attempt) draw(r);
      }
      following.textContent = log.textContent ? 'complete' : 'complete (no output)';
      draw(await api.get(base, { signal }));
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e.status === 404 && !FINAL.has(current.state)) {
        // Not started yet: no attempt to read. Look again shortly.
        following.textContent = `waiting for the run to start (${current.state})`;
        setTimeout(() => {
          if (!signal.aborted)
            api
              .get(base, { signal })
              .then(draw)
              .then(follow, () => {});
        }, 1000);
        return;
      }
      following.textContent = e.message;
    }
  }

  attempt.addEventListener('change', follow);
  draw(run);
  follow();
  return () => controller && controller.abort();
}
