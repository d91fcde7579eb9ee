// The jobs list: state (with a dead last run said), schedule in words, last and next run in the chosen zone,
// labels; filtered; a selection paused or resumed at once.
import { api, query, seg } from './api.js';
import { h, badge, say, table, labels, field, searchForm, loadMore } from './dom.js';
import { schedule } from './words.js';
import { time, jobZone } from './time.js';
import { jobBadge } from './runinfo.js';
import { selection } from './bulk.js';

const LAST_RUN_READS = 4;

export async function jobsPage(main) {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const state = h(
    'select',
    { id: 'f-state', name: 'state' },
    ['', 'ACTIVE', 'PAUSED', 'COMPLETED', 'DELETED'].map((s) =>
      h('option', { value: s, selected: s === (params.get('state') || '') }, s || 'any'),
    ),
  );
  const label = h('input', { id: 'f-label', name: 'label', placeholder: 'team=data', size: 16 });
  const name = h('input', { id: 'f-name', name: 'namePrefix', placeholder: 'nightly-', size: 16, type: 'search' });
  const holder = h('div');
  const more = h('p');
  const filters = searchForm(
    reload,
    field('State', state),
    field('Labels', label),
    field('Name starts with', name),
    h('button', { type: 'submit' }, 'Filter'),
  );

  let rows = [];
  const picked = selection({ key: (j) => j.id, label: (j) => j.name, redraw: () => draw() });
  const note = h('input', { id: 'bulk-note', size: 24, maxlength: 500 });
  const bulk = h(
    'div',
    { class: 'toolbar bulk' },
    field('Pause note (optional)', note),
    h('button', { type: 'button', onclick: () => pauseSelected() }, 'Pause selected'),
    h('button', { type: 'button', onclick: () => resumeSelected() }, 'Resume selected'),
    picked.count,
  );
  main.append(h('h1', {}, 'Jobs', h('a', { class: 'button', href: '#/new' }, 'New job')), filters, bulk, holder, more);
  state.addEventListener('change', reload);

  const replace = (j, view) => Object.assign(j, view, { lastRun: j.lastRun });

  async function pauseSelected() {
    const body = note.value.trim() ? { note: note.value.trim() } : {};
    await picked.run(
      'Pause',
      (j) => api.post(`/v1/jobs/${seg(j.id)}/pause`, body).then((v) => replace(j, v)),
      () => 'paused',
    );
  }

  async function resumeSelected() {
    await picked.run(
      'Resume',
      (j) => api.post(`/v1/jobs/${seg(j.id)}/resume`).then((v) => replace(j, v)),
      () => 'resumed',
    );
  }

  // Each reload counts: an answer to an earlier one (the filters have changed since) is dropped, not mixed in.
  let asked = 0;

  async function load(cursor) {
    const mine = asked;
    const page = await api.get(
      query('/v1/jobs', {
        state: state.value,
        label: label.value.trim(),
        namePrefix: name.value.trim(),
        limit: 50,
        cursor,
      }),
    );
    if (mine !== asked) return;
    rows = rows.concat(page.items);
    draw();
    more.replaceChildren(loadMore(page, load));
    // The last run of each job shown: one small read each, made after the list is on screen, four at a time so
    // that a page of 50 jobs stays well inside the API's throttling (in AWS, a burst of 100 and 50 a second).
    const queue = [...page.items];
    const next = async () => {
      for (let j = queue.shift(); j; j = queue.shift()) {
        try {
          const p = await api.get(query(`/v1/jobs/${seg(j.id)}/runs`, { limit: 1 }));
          j.lastRun = p.items[0] || null;
          drawLastRun(j);
        } catch {
          /* left as "…": the job's own page shows its runs */
        }
      }
    };
    for (let k = 0; k < LAST_RUN_READS; k++) next();
  }

  async function reload() {
    asked += 1;
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
    picked.setRows(rows);
    holder.replaceChildren(
      table(
        [
          { title: picked.all(), cell: (j) => picked.checkbox(j) },
          { title: 'Name', cell: (j) => h('a', { href: `#/jobs/${seg(j.id)}` }, j.name) },
          {
            title: 'State',
            cell: (j) => h('span', { 'data-state-of': j.id }, jobBadge(j, j.lastRun, j.pauseNote || null)),
          },
          { title: 'Schedule', cell: (j) => schedule(j.schedule) },
          { title: 'Last run', cell: (j) => h('span', { 'data-last-of': j.id }, lastRun(j)) },
          { title: 'Next run', cell: (j) => time(j.nextRunAt, jobZone(j)) },
          { title: 'Labels', cell: (j) => labels(j.labels) },
          { title: h('span', { class: 'sr-only' }, 'Outcome'), cell: (j) => picked.outcome(j) },
        ],
        rows,
        'No jobs match. Create one with New job, or with bin/punctual job apply.',
        'Jobs',
      ),
    );
  }

  /** A job's last run, once read, drawn into its row only: the rest of the table (a checkbox with the focus) stays. */
  function drawLastRun(j) {
    const at = (attr) => [...holder.querySelectorAll(`[${attr}]`)].find((el) => el.getAttribute(attr) === j.id);
    at('data-state-of')?.replaceChildren(jobBadge(j, j.lastRun, j.pauseNote || null));
    at('data-last-of')?.replaceChildren(lastRun(j));
  }

  await reload();
}

function lastRun(j) {
  if (j.lastRun === undefined) return h('span', { class: 'muted' }, '…');
  if (j.lastRun === null) return h('span', { class: 'muted' }, 'none yet');
  const r = j.lastRun;
  return h(
    'a',
    { href: `#/jobs/${seg(j.id)}/runs/${seg(r.runId)}`, class: 'inline' },
    badge(r.state),
    r.exitCode !== null && r.exitCode !== undefined ? `exit ${r.exitCode}` : '',
    time(r.finishedAt || r.startedAt || r.scheduledAt, jobZone(j)),
  );
}
