// The jobs list, and one job: its definition, next fire times, runs, and what can be done to it.
import { api, query, seg } from './api.js';
import { h, badge, time, say, sayNext, table, labels, between, millis } from './dom.js';
import { schedule, DST } from './words.js';

const REFRESH_MS = 3000;
const LAST_RUN_READS = 4;

export async function jobsPage(main) {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const state = h('select', { id: 'f-state', name: 'state' },
    ['', 'ACTIVE', 'PAUSED', 'COMPLETED', 'DELETED'].map((s) => h('option', { value: s, selected: s === (params.get('state') || '') }, s || 'any')));
  const label = h('input', { id: 'f-label', name: 'label', placeholder: 'team=data', size: 16 });
  const name = h('input', { id: 'f-name', name: 'namePrefix', placeholder: 'nightly-', size: 16, type: 'search' });
  const holder = h('div');
  const more = h('p');
  const filters = h('form', { class: 'toolbar', role: 'search', onsubmit: (ev) => { ev.preventDefault(); reload(); } },
    h('div', { class: 'field' }, h('label', { for: 'f-state' }, 'State'), state),
    h('div', { class: 'field' }, h('label', { for: 'f-label' }, 'Labels'), label),
    h('div', { class: 'field' }, h('label', { for: 'f-name' }, 'Name starts with'), name),
    h('button', { type: 'submit' }, 'Filter'));
  main.append(h('h1', {}, 'Jobs', h('a', { class: 'button', href: '#/new' }, 'New job')), filters, holder, more);
  state.addEventListener('change', reload);

  let rows = [];

  async function load(cursor) {
    const page = await api.get(query('/v1/jobs', {
      state: state.value, label: label.value.trim(), namePrefix: name.value.trim(), limit: 50, cursor,
    }));
    rows = rows.concat(page.items);
    draw();
    more.replaceChildren(page.nextCursor ? h('button', { type: 'button', onclick: () => load(page.nextCursor) }, 'Load more') : '');
    // The last run of each job shown: one small read each, made after the list is on screen, four at a time so
    // that a page of 50 jobs stays well inside the API's throttling (in AWS, a burst of 100 and 50 a second).
    const queue = [...page.items];
    const next = async () => {
      for (let j = queue.shift(); j; j = queue.shift()) {
        try {
          const p = await api.get(query(`/v1/jobs/${seg(j.id)}/runs`, { limit: 1 }));
          j.lastRun = p.items[0] || null;
          draw();
        } catch { /* left as "…": the job's own page shows its runs */ }
      }
    };
    for (let k = 0; k < LAST_RUN_READS; k++) next();
  }

  async function reload() {
    rows = [];
    label.removeAttribute('aria-invalid');
    try {
      await load(null);
    } catch (e) {
      if (e.fields && e.fields.label) label.setAttribute('aria-invalid', 'true');
      say(e.message, true);
    }
  }

  function draw() {
    holder.replaceChildren(table([
      { title: 'Name', cell: (j) => h('a', { href: `#/jobs/${seg(j.id)}` }, j.name) },
      { title: 'State', cell: (j) => badge(j.state, j.pauseNote || null) },
      { title: 'Schedule', cell: (j) => schedule(j.schedule) },
      { title: 'Last run', cell: (j) => lastRun(j) },
      { title: 'Next run', cell: (j) => time(j.nextRunAt) },
      { title: 'Labels', cell: (j) => labels(j.labels) },
    ], rows, 'No jobs match. Create one with New job, or with bin/punctual job apply.'));
  }

  await reload();
}

function lastRun(j) {
  if (j.lastRun === undefined) return h('span', { class: 'muted' }, '…');
  if (j.lastRun === null) return h('span', { class: 'muted' }, 'none yet');
  const r = j.lastRun;
  return h('a', { href: `#/jobs/${seg(j.id)}/runs/${seg(r.runId)}`, class: 'inline' },
    badge(r.state), r.exitCode !== null && r.exitCode !== undefined ? `exit ${r.exitCode}` : '', time(r.finishedAt || r.startedAt || r.scheduledAt));
}

export async function jobPage(main, id) {
  let { body: job, etag } = await api.getWithEtag(`/v1/jobs/${seg(id)}`);
  const title = h('h1');
  const actions = h('div', { class: 'actions' });
  const facts = h('dl', { class: 'facts' });
  const fires = h('div');
  const runs = h('div');
  const form = h('div');
  // Held, not looked up in main: a refresh that lands after the reader has gone to another page (an action's
  // refreshJob, say) must draw into these detached nodes, not fail on main's new content.
  const json = h('pre', { id: 'job-json' });
  main.append(title, actions, form,
    h('div', { class: 'cols' },
      h('section', { 'aria-labelledby': 'runs-h' }, h('h2', { id: 'runs-h' }, 'Runs'), runs),
      h('section', {},
        h('h2', { id: 'next-h' }, 'Next fire times'), fires,
        h('h2', {}, 'Definition'), facts,
        h('details', {}, h('summary', {}, 'As JSON'), json))));

  function drawJob() {
    title.replaceChildren(job.name, badge(job.state, job.pauseNote || null));
    facts.replaceChildren(...[
      ['Id', job.id], ['Schedule', schedule(job.schedule)], ['Next run', time(job.nextRunAt)],
      ['Binary', job.binaryId], ['Arguments', (job.args || []).join(' ')],
      ['Environment', Object.keys(job.env || {}).join(', ')], ['Secrets', (job.secrets || []).join(', ')],
      ['Timeout', `${job.timeoutSeconds} s`], ['Attempts', job.maxAttempts], ['Overlap', job.overlap],
      ['At once', job.overlap === 'allow' ? '' : `at most ${job.maxConcurrency}`], ['Lane', job.priority],
      ['Catch-up', job.catchUp ? job.catchUp.mode : ''],
      ['Labels', labels(job.labels)], ['Pause note', job.pauseNote], ['Version', job.version],
      ['Created', time(job.createdAt)], ['Updated', time(job.updatedAt)],
    ].filter(([, v]) => v !== null && v !== undefined && v !== '').flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
    json.textContent = JSON.stringify(job, null, 2);
    drawActions();
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

  async function refreshJob() {
    ({ body: job, etag } = await api.getWithEtag(`/v1/jobs/${seg(id)}`));
    drawJob();
    await Promise.all([drawFires(), drawRuns()]);
  }

  function drawActions() {
    const live = job.state !== 'DELETED';
    // replaceChildren, unlike h(), would print a false as text: the actions that do not apply are filtered out.
    actions.replaceChildren(...[
      live && h('button', { type: 'button', class: 'primary', onclick: async () => {
        const run = await act('Triggered: a run was queued now.', () => api.post(`/v1/jobs/${seg(id)}/trigger`));
        if (run) drawRuns();
      } }, 'Trigger now'),
      job.state === 'ACTIVE' && h('button', { type: 'button', onclick: () => pauseForm() }, 'Pause…'),
      job.state === 'PAUSED' && h('button', { type: 'button', onclick: () => resumeForm() }, 'Resume…'),
      live && h('button', { type: 'button', onclick: () => backfillForm() }, 'Backfill…'),
      live && h('a', { class: 'button', href: `#/jobs/${seg(id)}/edit` }, 'Edit'),
      live && h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!confirm(`Delete ${job.name}? Its runs that have not started will not start.`)) return;
        if (await act(`Deleted ${job.name}.`, () => api.del(`/v1/jobs/${seg(id)}`))) {
          sayNext(`Deleted ${job.name}.`);
          location.hash = '#/jobs';
        }
      } }, 'Delete'),
    ].filter(Boolean));
  }

  function inline(legend, fields, submit, run) {
    const f = h('form', { class: 'toolbar', onsubmit: async (ev) => {
      ev.preventDefault();
      if (await act(...run())) { form.replaceChildren(); await refreshJob(); }
    } }, h('strong', {}, legend), fields, h('button', { type: 'submit', class: 'primary' }, submit),
    h('button', { type: 'button', onclick: () => form.replaceChildren() }, 'Cancel'));
    form.replaceChildren(f);
    f.querySelector('input, select')?.focus();
  }

  function pauseForm() {
    const note = h('input', { id: 'pause-note', size: 40, maxlength: 500 });
    inline('Pause', h('div', { class: 'field' }, h('label', { for: 'pause-note' }, 'Note (why, for the next reader)'), note), 'Pause',
      () => ['Paused: no run of this job starts until it is resumed.',
        () => api.post(`/v1/jobs/${seg(id)}/pause`, note.value.trim() ? { note: note.value.trim() } : {})]);
  }

  function resumeForm() {
    const catchUp = h('select', { id: 'resume-catchup' },
      [['', "the job's own"], ['skip', 'skip: none of the missed runs'], ['latest', 'latest: the last missed run only'], ['all', 'all: every missed run']]
        .map(([v, t]) => h('option', { value: v }, t)));
    inline('Resume', h('div', { class: 'field' }, h('label', { for: 'resume-catchup' }, 'Runs missed while paused'), catchUp), 'Resume',
      () => ['Resumed.', () => api.post(`/v1/jobs/${seg(id)}/resume`, catchUp.value ? { catchUp: catchUp.value } : {})]);
  }

  function backfillForm() {
    const from = h('input', { id: 'bf-from', type: 'datetime-local', step: 1, required: true });
    const to = h('input', { id: 'bf-to', type: 'datetime-local', step: 1, required: true });
    const lane = h('select', { id: 'bf-lane' }, ['', 'high', 'normal', 'low'].map((l) =>
      h('option', { value: l }, l || `the job's (${job.priority})`)));
    inline('Backfill', [
      h('div', { class: 'field' }, h('label', { for: 'bf-from' }, 'From (your time)'), from),
      h('div', { class: 'field' }, h('label', { for: 'bf-to' }, 'To'), to),
      h('div', { class: 'field' }, h('label', { for: 'bf-lane' }, 'Lane'), lane)], 'Create missing runs',
    () => [(r) => `Backfill: ${r.created.length} run(s) created, ${r.alreadyExisting} already there.`, async () => {
      const r = await api.post(`/v1/jobs/${seg(id)}/backfill`, {
        from: new Date(from.value).toISOString(), to: new Date(to.value).toISOString(),
        priority: lane.value || undefined,
      });
      return r;
    }]);
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
    runs.replaceChildren(table([
      { title: 'Scheduled', cell: (r) => h('a', { href: `#/jobs/${seg(id)}/runs/${seg(r.runId)}` }, time(r.scheduledAt)) },
      { title: 'State', cell: (r) => badge(r.state) },
      { title: 'Attempt', num: true, cell: (r) => `${r.attempt}/${r.maxAttempts}` },
      { title: 'Exit', num: true, cell: (r) => r.exitCode ?? '' },
      { title: 'Lateness', num: true, cell: (r) => (r.startedAt ? millis(new Date(r.startedAt) - new Date(r.scheduledAt)) : '') },
      { title: 'Took', num: true, cell: (r) => between(r.startedAt, r.finishedAt) },
    ], page.items, 'No runs yet.'));
  }

  drawJob();
  await Promise.all([drawFires(), drawRuns()]);
  // Runs change on their own: refresh them while the page is open (and visible).
  const timer = setInterval(() => { if (!document.hidden) drawRuns().catch(() => {}); }, REFRESH_MS);
  return () => clearInterval(timer);
}

/** A preview's occurrences, DST edges marked with why. */
export function occurrences(preview) {
  if (!preview.occurrences.length) return h('p', { class: 'muted' }, 'It does not fire again.');
  return h('ol', { class: 'fires' }, preview.occurrences.map((o) => h('li', {},
    h('time', { datetime: o.at, title: o.at }, o.local.replace('T', ' ').replace(/\[.*\]$/, '')),
    o.dst ? [' ', h('span', { class: 'badge dst', title: DST[o.dst] || o.dst }, `DST ${o.dst}`)] : null)));
}
