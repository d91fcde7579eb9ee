// One job: its definition, next fire times, run history (a chart and an outcome strip), runs, and what can be done
// to it. Times in the zone the header's switch chose; "the job's zone" is this job's.
import { api, query, seg } from './api.js';
import { h, badge, say, sayNext, table, labels, between, field } from './dom.js';
import { schedule, DST } from './words.js';
import { time, jobZone, setPageZone, shownZone, fromInput } from './time.js';
import { jobBadge, lateness } from './runinfo.js';
import { history } from './history.js';

const REFRESH_MS = 3000;

export async function jobPage(main, id) {
  let { body: job } = await api.getWithEtag(`/v1/jobs/${seg(id)}`);
  let lastRun = null;
  // The job's binary by name (a job holds its id): read once per binary id, drawn when it comes.
  let binary = null;
  let asked = null;
  setPageZone(jobZone(job));
  const title = h('h1');
  const actions = h('div', { class: 'actions' });
  const facts = h('dl', { class: 'facts' });
  const fires = h('div');
  const runs = h('div');
  const chart = h('div', { class: 'history' });
  const form = h('div');
  // Held, not looked up in main: a refresh that lands after the reader has gone to another page (an action's
  // refreshJob, say) must draw into these detached nodes, not fail on main's new content.
  const json = h('pre', { id: 'job-json' });
  main.append(
    title,
    actions,
    form,
    h(
      'div',
      { class: 'cols' },
      h(
        'section',
        { 'aria-labelledby': 'runs-h' },
        h('h2', { id: 'history-h' }, 'Run history'),
        chart,
        h('h2', { id: 'runs-h' }, 'Runs'),
        runs,
      ),
      h(
        'section',
        {},
        h('h2', { id: 'next-h' }, 'Next fire times'),
        fires,
        h('h2', {}, 'Definition'),
        facts,
        h('details', {}, h('summary', {}, 'As JSON'), json),
      ),
    ),
  );

  function drawJob() {
    drawFacts();
    drawActions();
  }

  // Not the actions: a button redrawn between a click's press and its release loses the click.
  function drawFacts() {
    title.replaceChildren(job.name, jobBadge(job, lastRun, job.pauseNote || null));
    facts.replaceChildren(
      ...[
        ['Id', job.id],
        ['Schedule', schedule(job.schedule)],
        ['Next run', time(job.nextRunAt)],
        ['Binary', binaryName()],
        ['Arguments', (job.args || []).join(' ')],
        ['Environment', Object.keys(job.env || {}).join(', ')],
        ['Secrets', (job.secrets || []).join(', ')],
        ['Timeout', `${job.timeoutSeconds} s`],
        ['Attempts', job.maxAttempts],
        ['No retry on exit', (job.nonRetryableExitCodes || []).join(', ')],
        ['Overlap', job.overlap],
        ['At once', job.overlap === 'allow' ? '' : `at most ${job.maxConcurrency}`],
        ['Lane', job.priority],
        ['Jitter', job.jitter ? `${job.jitter.mode}, up to ${job.jitter.max}` : ''],
        [
          'Catch-up',
          job.catchUp ? `${job.catchUp.mode} (within ${job.catchUp.maxAge}, at most ${job.catchUp.maxRuns})` : '',
        ],
        ['Max run age', job.maxRunAge],
        [
          'Limits',
          job.limits
            ? Object.entries(job.limits)
                .filter(([, v]) => v !== null)
                .map(([k, v]) => `${k}=${v}`)
                .join(', ')
            : '',
        ],
        ['Webhook', job.webhook ? `${job.webhook.url} on ${(job.webhook.on || []).join(', ') || 'DEAD, SKIPPED'}` : ''],
        [
          'Expect',
          job.expect
            ? job.expect.every
              ? `a success every ${job.expect.every}`
              : `a success before each ${schedule(job.expect.by)}`
            : '',
        ],
        ['Labels', labels(job.labels)],
        ['Pause note', job.pauseNote],
        ['Version', job.version],
        ['Created', time(job.createdAt)],
        ['Updated', time(job.updatedAt)],
      ]
        .filter(([, v]) => v !== null && v !== undefined && v !== '')
        .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    );
    json.textContent = JSON.stringify(job, null, 2);
  }

  async function act(what, fn) {
    try {
      const result = await fn();
      say(typeof what === 'function' ? what(result) : what);
      return result;
    } catch (e) {
      say(e.message, true);
      return null;
    }
  }

  function binaryName() {
    if (!binary || binary.id !== job.binaryId) {
      if (asked !== job.binaryId) {
        asked = job.binaryId;
        api
          .get(`/v1/binaries/${seg(job.binaryId)}`)
          .then((b) => {
            binary = b;
            drawFacts();
          })
          .catch(() => {});
      }
      return job.binaryId;
    }
    return h(
      'span',
      { title: `${binary.id}, sha256 ${binary.sha256}` },
      `${binary.name} (sha256 ${binary.sha256.slice(0, 12)}…)`,
    );
  }

  async function refreshJob() {
    ({ body: job } = await api.getWithEtag(`/v1/jobs/${seg(id)}`));
    drawJob();
    await Promise.all([drawFires(), drawRuns()]);
  }

  function drawActions() {
    const live = job.state !== 'DELETED';
    // replaceChildren, unlike h(), would print a false as text: the actions that do not apply are filtered out.
    actions.replaceChildren(
      ...[
        live &&
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              onclick: async () => {
                const run = await act('Triggered: a run was queued now.', () =>
                  api.post(`/v1/jobs/${seg(id)}/trigger`),
                );
                if (run) drawRuns();
              },
            },
            'Trigger now',
          ),
        job.state === 'ACTIVE' && h('button', { type: 'button', onclick: () => pauseForm() }, 'Pause…'),
        job.state === 'PAUSED' && h('button', { type: 'button', onclick: () => resumeForm() }, 'Resume…'),
        live && h('button', { type: 'button', onclick: () => backfillForm() }, 'Backfill…'),
        live && h('a', { class: 'button', href: `#/jobs/${seg(id)}/edit` }, 'Edit'),
        live &&
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: async () => {
                if (!confirm(`Delete ${job.name}? Its runs that have not started will not start.`)) return;
                if (await act(`Deleted ${job.name}.`, () => api.del(`/v1/jobs/${seg(id)}`))) {
                  sayNext(`Deleted ${job.name}.`);
                  location.hash = '#/jobs';
                }
              },
            },
            'Delete',
          ),
      ].filter(Boolean),
    );
  }

  function inline(legend, fields, submit, run) {
    const f = h(
      'form',
      {
        class: 'toolbar',
        onsubmit: async (ev) => {
          ev.preventDefault();
          if (await act(...run())) {
            form.replaceChildren();
            await refreshJob();
          }
        },
      },
      h('strong', {}, legend),
      fields,
      h('button', { type: 'submit', class: 'primary' }, submit),
      h('button', { type: 'button', onclick: () => form.replaceChildren() }, 'Cancel'),
    );
    form.replaceChildren(f);
    f.querySelector('input, select')?.focus();
  }

  function pauseForm() {
    const note = h('input', { id: 'pause-note', size: 40, maxlength: 500 });
    inline('Pause', field('Note (why, for the next reader)', note), 'Pause', () => [
      'Paused: no run of this job starts until it is resumed.',
      () => api.post(`/v1/jobs/${seg(id)}/pause`, note.value.trim() ? { note: note.value.trim() } : {}),
    ]);
  }

  function resumeForm() {
    const catchUp = h(
      'select',
      { id: 'resume-catchup' },
      [
        ['', "the job's own"],
        ['skip', 'skip: none of the missed runs'],
        ['latest', 'latest: the last missed run only'],
        ['all', 'all: every missed run'],
      ].map(([v, t]) => h('option', { value: v }, t)),
    );
    inline('Resume', field('Runs missed while paused', catchUp), 'Resume', () => [
      'Resumed.',
      () => api.post(`/v1/jobs/${seg(id)}/resume`, catchUp.value ? { catchUp: catchUp.value } : {}),
    ]);
  }

  function backfillForm() {
    const from = h('input', { id: 'bf-from', type: 'datetime-local', step: 1, required: true });
    const to = h('input', { id: 'bf-to', type: 'datetime-local', step: 1, required: true });
    const lane = h(
      'select',
      { id: 'bf-lane' },
      ['', 'high', 'normal', 'low'].map((l) => h('option', { value: l }, l || `the job's (${job.priority})`)),
    );
    inline(
      'Backfill',
      [field(`From (${shownZone()})`, from), field('To', to), field('Lane', lane)],
      'Create missing runs',
      () => [
        (r) => `Backfill: ${r.created.length} run(s) created, ${r.alreadyExisting} already there.`,
        async () => {
          const r = await api.post(`/v1/jobs/${seg(id)}/backfill`, {
            from: fromInput(from.value, shownZone()),
            to: fromInput(to.value, shownZone()),
            priority: lane.value || undefined,
          });
          return r;
        },
      ],
    );
  }

  async function drawFires() {
    if (job.state !== 'ACTIVE') {
      fires.replaceChildren(h('p', { class: 'muted' }, `None: the job is ${job.state.toLowerCase()}.`));
      return;
    }
    try {
      const next = await api.get(`/v1/jobs/${seg(id)}/next?count=10`);
      fires.replaceChildren(occurrences(next));
    } catch (e) {
      fires.replaceChildren(h('p', { class: 'muted' }, e.message));
    }
  }

  async function drawRuns() {
    const page = await api.get(query(`/v1/jobs/${seg(id)}/runs`, { limit: 25 }));
    const last = page.items[0] || null;
    if ((last && last.state) !== (lastRun && lastRun.state)) {
      lastRun = last;
      title.replaceChildren(job.name, jobBadge(job, lastRun, job.pauseNote || null));
    }
    chart.replaceChildren(history(page.items, id));
    runs.replaceChildren(
      table(
        [
          {
            title: 'Due',
            cell: (r) => h('a', { href: `#/jobs/${seg(id)}/runs/${seg(r.runId)}` }, time(r.scheduledAt)),
          },
          { title: 'State', cell: (r) => badge(r.state) },
          { title: 'Attempt', num: true, cell: (r) => `${r.attempt}/${r.maxAttempts}` },
          { title: 'Exit', num: true, cell: (r) => r.exitCode ?? '' },
          { title: 'Lateness', num: true, cell: (r) => lateness(r) },
          { title: 'Took', num: true, cell: (r) => between(r.startedAt, r.finishedAt) },
        ],
        page.items,
        'No runs yet.',
        'Runs',
      ),
    );
  }

  drawJob();
  await Promise.all([drawFires(), drawRuns()]);
  // Runs change on their own: refresh them while the page is open (and visible).
  const timer = setInterval(() => {
    if (!document.hidden) drawRuns().catch(() => {});
  }, REFRESH_MS);
  return () => clearInterval(timer);
}

/** A preview's occurrences, DST edges marked with why. */
export function occurrences(preview) {
  if (!preview.occurrences.length) return h('p', { class: 'muted' }, 'It does not fire again.');
  return h(
    'ol',
    { class: 'fires' },
    preview.occurrences.map((o) =>
      h(
        'li',
        {},
        time(o.at, preview.timezone),
        o.dst ? [' ', h('span', { class: 'badge dst', title: DST[o.dst] || o.dst }, `DST ${o.dst}`)] : null,
      ),
    ),
  );
}
