// Runs across jobs, newest due first: narrowed by state, a due-time range (typed in the shown zone, sent as UTC
// instants) and whether runs not yet due are included. The filters are kept in the address, so a search can be
// shared or reloaded.
import { api, query, seg } from './api.js';
import { h, badge, say, table, between, field, searchForm, loadMore } from './dom.js';
import { time, shownZone, fromInput, toInput } from './time.js';
import { origin } from './runinfo.js';

const STATES = ['SCHEDULED', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'DEAD', 'CANCELLED', 'SKIPPED'];

export async function runsPage(main) {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const zone = shownZone();
  const state = h('input', {
    id: 'r-state',
    size: 22,
    value: params.get('state') || '',
    list: 'run-states',
    spellcheck: 'false',
    placeholder: 'DEAD,FAILED',
  });
  const states = h(
    'datalist',
    { id: 'run-states' },
    STATES.map((v) => h('option', { value: v })),
  );
  const from = h('input', { id: 'r-from', type: 'datetime-local', step: 1, value: toInput(params.get('from'), zone) });
  const to = h('input', { id: 'r-to', type: 'datetime-local', step: 1, value: toInput(params.get('to'), zone) });
  const future = h('input', { id: 'r-future', type: 'checkbox', checked: params.get('future') === 'true' });
  const holder = h('div', { id: 'runs-found', 'aria-busy': 'true' });
  const more = h('p');
  const filters = searchForm(
    search,
    field('States (comma-separated)', state, states),
    field(`Due from (${zone})`, from),
    field(`Due until (${zone})`, to),
    h('label', { class: 'inline', for: 'r-future' }, future, 'Include runs not yet due'),
    h('button', { type: 'submit', class: 'primary' }, 'Search'),
  );
  main.append(
    h('h1', {}, 'Runs'),
    h('p', { class: 'muted' }, 'Runs of all your jobs, newest due first.'),
    filters,
    holder,
    more,
  );

  const asked = () => ({
    state: state.value
      .split(',')
      .map((x) => x.trim().toUpperCase())
      .filter(Boolean)
      .join(','),
    from: fromInput(from.value, zone),
    to: fromInput(to.value, zone),
    future: future.checked ? 'true' : '',
  });

  /** The filters go into the address (the page is drawn again from it), so Back and a reload keep them. */
  function search() {
    const q = query('#/runs', asked());
    if (q === location.hash) load();
    else location.hash = q;
  }

  let rows = [];
  async function load(cursor) {
    if (!cursor) rows = [];
    holder.setAttribute('aria-busy', 'true');
    [state, from, to].forEach((i) => i.removeAttribute('aria-invalid'));
    try {
      const page = await api.get(query('/v1/runs', { ...asked(), limit: 50, cursor }));
      rows = rows.concat(page.items);
      draw();
      more.replaceChildren(loadMore(page, load));
    } catch (e) {
      for (const [f, input] of [
        ['state', state],
        ['from', from],
        ['to', to],
      ]) {
        if (e.fields && e.fields[f]) input.setAttribute('aria-invalid', 'true');
      }
      holder.replaceChildren(h('div', { class: 'problem', role: 'alert' }, e.message));
      say(e.message, true);
    }
    holder.setAttribute('aria-busy', 'false');
  }

  function draw() {
    holder.replaceChildren(
      table(
        [
          { title: 'Job', cell: (r) => h('a', { href: `#/jobs/${seg(r.jobId)}` }, r.jobName || r.jobId) },
          { title: 'Run', cell: (r) => h('a', { href: `#/jobs/${seg(r.jobId)}/runs/${seg(r.runId)}` }, r.runId) },
          { title: 'State', cell: (r) => badge(r.state) },
          { title: 'Origin', cell: (r) => origin(r) || (r.origin ? 'scheduled' : '') },
          { title: 'Attempt', num: true, cell: (r) => `${r.attempt}/${r.maxAttempts}` },
          { title: 'Exit', num: true, cell: (r) => r.exitCode ?? '' },
          { title: 'Due', cell: (r) => time(r.scheduledAt) },
          { title: 'Started', cell: (r) => time(r.startedAt) },
          { title: 'Duration', num: true, cell: (r) => between(r.startedAt, r.finishedAt) },
        ],
        rows,
        'No runs match.',
        'Runs',
      ),
    );
  }

  await load();
}
