// Dead letters: runs that used up their attempts, most recently finished first, each retried with fresh attempts,
// one at a time or a selection at once (each row says how its own retry went).
import { api, query, seg } from './api.js';
import { h, badge, say, table, loadMore } from './dom.js';
import { time } from './time.js';
import { selection } from './bulk.js';

export async function deadLettersPage(main) {
  main.append(
    h('h1', {}, 'Dead letters'),
    h('p', { class: 'muted' }, 'Runs that failed every attempt they had. Retry gives one a fresh set of attempts.'),
  );
  const holder = h('div');
  const more = h('p');
  const rows = [];
  const picked = selection({
    key: (r) => `${r.jobId}/${r.runId}`,
    label: (r) => `run ${r.runId} of ${r.jobName}`,
    redraw: () => draw(),
  });
  const retryAll = h(
    'div',
    { class: 'toolbar bulk' },
    h('button', { type: 'button', class: 'primary', onclick: () => retrySelected() }, 'Retry selected'),
    picked.count,
  );
  main.append(retryAll, holder, more);
  const names = new Map();

  async function jobName(id) {
    if (!names.has(id)) {
      names.set(
        id,
        api.get(`/v1/jobs/${seg(id)}`).then(
          (j) => j.name,
          () => id,
        ),
      );
    }
    return names.get(id);
  }

  const retry = (r) =>
    api
      .post(`/v1/jobs/${seg(r.jobId)}/runs/${seg(r.runId)}/retry`)
      .then((again) => Object.assign(r, again, { jobName: r.jobName }));

  async function retrySelected() {
    await picked.run(
      'Retry',
      (r) => (r.state === 'DEAD' ? retry(r) : Promise.reject(new Error(`not dead (${r.state}): nothing to retry`))),
      (r) => `queued again (${r.state})`,
    );
  }

  async function load(cursor) {
    const page = await api.get(query('/v1/runs', { state: 'DEAD', limit: 50, cursor }));
    for (const r of page.items) {
      if (!r.jobName) r.jobName = await jobName(r.jobId);
      rows.push(r);
    }
    draw();
    more.replaceChildren(loadMore(page, load));
  }

  function draw() {
    picked.setRows(rows);
    holder.replaceChildren(
      table(
        [
          { title: picked.all(), cell: (r) => picked.checkbox(r) },
          { title: 'Job', cell: (r) => h('a', { href: `#/jobs/${seg(r.jobId)}` }, r.jobName) },
          { title: 'Run', cell: (r) => h('a', { href: `#/jobs/${seg(r.jobId)}/runs/${seg(r.runId)}` }, r.runId) },
          { title: 'State', cell: (r) => badge(r.state) },
          { title: 'Due', cell: (r) => time(r.scheduledAt) },
          { title: 'Finished', cell: (r) => time(r.finishedAt) },
          { title: 'Attempts', num: true, cell: (r) => `${r.attempt}/${r.maxAttempts}` },
          { title: 'Exit code', num: true, cell: (r) => r.exitCode ?? '' },
          { title: 'Error', cell: (r) => r.error || '' },
          {
            title: h('span', { class: 'sr-only' }, 'Retry'),
            cell: (r) => [
              r.state === 'DEAD'
                ? h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': `Retry run ${r.runId} of ${r.jobName}`,
                      onclick: async (ev) => {
                        ev.target.disabled = true;
                        try {
                          await retry(r);
                          say(`Run ${r.runId} of ${r.jobName} is queued again (${r.state}).`);
                          draw();
                        } catch (e) {
                          ev.target.disabled = false;
                          say(e.message, true);
                        }
                      },
                    },
                    'Retry',
                  )
                : '',
              ' ',
              picked.outcome(r),
            ],
          },
        ],
        rows,
        'No dead letters: every run that ran out of attempts has been retried, or none has.',
        'Dead letters',
      ),
    );
  }

  await load(null);
}
