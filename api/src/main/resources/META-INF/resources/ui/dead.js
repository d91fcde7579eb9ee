// Dead letters: runs that used up their attempts, most recently finished first, each retried with fresh attempts.
import { api, query, seg } from './api.js';
import { h, badge, time, say, table } from './dom.js';

export async function deadLettersPage(main) {
  main.append(h('h1', {}, 'Dead letters'),
    h('p', { class: 'muted' }, 'Runs that failed every attempt they had. Retry gives one a fresh set of attempts.'));
  const holder = h('div');
  const more = h('p');
  main.append(holder, more);
  const names = new Map();
  const rows = [];

  async function jobName(id) {
    if (!names.has(id)) {
      names.set(id, api.get(`/v1/jobs/${seg(id)}`).then((j) => j.name, () => id));
    }
    return names.get(id);
  }

  async function load(cursor) {
    const page = await api.get(query('/v1/runs', { state: 'DEAD', limit: 50, cursor }));
    for (const r of page.items) {
      r.jobName = await jobName(r.jobId);
      rows.push(r);
    }
    draw();
    more.replaceChildren(page.nextCursor
      ? h('button', { type: 'button', onclick: () => load(page.nextCursor) }, 'Load more')
      : '');
  }

  function draw() {
    holder.replaceChildren(table([
      { title: 'Job', cell: (r) => h('a', { href: `#/jobs/${seg(r.jobId)}` }, r.jobName) },
      { title: 'Run', cell: (r) => h('a', { href: `#/jobs/${seg(r.jobId)}/runs/${seg(r.runId)}` }, r.runId) },
      { title: 'State', cell: (r) => badge(r.state) },
      { title: 'Scheduled', cell: (r) => time(r.scheduledAt) },
      { title: 'Finished', cell: (r) => time(r.finishedAt) },
      { title: 'Attempts', num: true, cell: (r) => `${r.attempt}/${r.maxAttempts}` },
      { title: 'Exit code', num: true, cell: (r) => r.exitCode ?? '' },
      { title: 'Error', cell: (r) => r.error || '' },
      { title: '', cell: (r) => (r.state === 'DEAD' ? h('button', {
        type: 'button',
        'aria-label': `Retry run ${r.runId} of ${r.jobName}`,
        onclick: async (ev) => {
          ev.target.disabled = true;
          try {
            const again = await api.post(`/v1/jobs/${seg(r.jobId)}/runs/${seg(r.runId)}/retry`);
            Object.assign(r, again);
            say(`Run ${r.runId} of ${r.jobName} is queued again (${again.state}).`);
            draw();
          } catch (e) {
            ev.target.disabled = false;
            say(e.message, true);
          }
        },
      }, 'Retry') : '') },
    ], rows, 'No dead letters: every run that ran out of attempts has been retried, or none has.'));
  }

  await load(null);
}
