// Creating or editing a job. The schedule's preview is asked of the API as the reader types (the API walks it
// exactly as the dispatcher will, DST included), and every error the API names lands on the field it names.
import { api, query, seg, uploadBinary, Problem } from './api.js';
import { h, say, sayNext } from './dom.js';
import { occurrences } from './job.js';
import { field, pairs, policyFields } from './fields.js';
import { when, shownZone, jobZone, setPageZone, fromInput, toInput } from './time.js';

const KINDS = [
  ['cron', 'Cron, in a time zone'],
  ['interval', 'Every …'],
  ['once', 'Once, at a time'],
  ['dates', 'At a list of times'],
  ['now', 'Now'],
];

function lines(text) {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Arguments, one per line, kept as typed (an argument may start or end with a space); a last empty line is not one. */
function argLines(text) {
  if (text === '') return [];
  return text.replace(/\n$/, '').split('\n');
}

/** A line of a dates schedule: "instant", or "local-time zone". */
function dateEntry(line) {
  const [first, zone] = line.split(/\s+/, 2);
  return zone ? { local: first, zone } : first;
}

export async function editorPage(main, id) {
  const existing = id ? await api.getWithEtag(`/v1/jobs/${seg(id)}`) : null;
  const job = existing ? existing.body : null;
  const s = job
    ? job.schedule
    : { type: 'cron', expression: '0 6 * * *', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
  setPageZone(jobZone(job));
  // The zone the form's times are typed in: the one every time on the page is shown in.
  const tz = shownZone();
  const policy = policyFields(job);

  const name = h('input', { required: true, size: 40, value: job ? job.name : '', autocomplete: 'off' });
  const binary = h('select', {}, h('option', { value: '' }, 'Loading…'));
  const file = h('input', { type: 'file' });
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Upload' });
  const args = h('textarea', { rows: 2, cols: 40, spellcheck: 'false' }, job ? (job.args || []).join('\n') : '');
  const env = h(
    'textarea',
    { rows: 2, cols: 40, spellcheck: 'false' },
    job
      ? Object.entries(job.env || {})
          .map(([k, v]) => `${k}=${v}`)
          .join('\n')
      : '',
  );
  const labelsIn = h('input', {
    size: 40,
    value: job
      ? Object.entries(job.labels || {})
          .map(([k, v]) => `${k}=${v}`)
          .join(',')
      : '',
  });
  const timeout = h('input', { type: 'number', min: 1, value: job ? job.timeoutSeconds : '' });
  const attempts = h('input', { type: 'number', min: 1, value: job ? job.maxAttempts : '' });
  const overlap = h(
    'select',
    {},
    ['allow', 'forbid', 'queue'].map((o) =>
      h('option', { value: o, selected: (job ? job.overlap : 'allow') === o }, o),
    ),
  );
  const concurrency = h('input', {
    type: 'number',
    min: 1,
    max: 25,
    value: job && job.overlap !== 'allow' ? job.maxConcurrency : '',
  });
  const lane = h(
    'select',
    {},
    ['high', 'normal', 'low'].map((l) => h('option', { value: l, selected: (job ? job.priority : 'normal') === l }, l)),
  );

  const kind = s.type;
  const kinds = h(
    'fieldset',
    {},
    h('legend', {}, 'Schedule'),
    h(
      'div',
      { class: 'kinds', role: 'radiogroup' },
      KINDS.map(([k, t]) =>
        h('label', { class: 'inline' }, h('input', { type: 'radio', name: 'kind', value: k, checked: k === kind }), t),
      ),
    ),
  );
  const expression = h('input', { size: 24, value: s.expression || '', spellcheck: 'false' });
  const zone = h('input', { size: 24, value: s.timezone || 'UTC', list: 'zones' });
  const zones = h(
    'datalist',
    { id: 'zones' },
    (Intl.supportedValuesOf ? Intl.supportedValuesOf('timeZone') : []).map((z) => h('option', { value: z })),
  );
  const every = h('input', { size: 12, value: s.every || 'PT1H', spellcheck: 'false' });
  const start = h('input', { type: 'datetime-local', step: 1, value: toInput(s.start, tz) });
  const end = h('input', { type: 'datetime-local', step: 1, value: toInput(s.end, tz) });
  const at = h('input', { type: 'datetime-local', step: 1, value: toInput(s.at, tz) });
  const dates = h(
    'textarea',
    { rows: 3, cols: 40, spellcheck: 'false' },
    (s.dates || []).map((d) => (d.instant ? d.instant : `${d.local} ${d.zone}`)).join('\n'),
  );
  const parts = {
    cron: [
      field(
        'schedule.expression',
        'Cron expression',
        expression,
        'minute hour day-of-month month day-of-week, e.g. 30 2 * * 1-5',
      ),
      field('schedule.timezone', 'Time zone', zone, 'An IANA zone; its DST changes are taken into account'),
      zones,
    ],
    interval: [
      field('schedule.every', 'Every', every, 'An ISO-8601 duration: PT30S, PT15M, PT1H, P1D'),
      field('schedule.start', `From (${tz}; empty: now)`, start),
      field('schedule.end', `Until (${tz}; empty: no end)`, end),
    ],
    once: [field('schedule.at', `At (${tz})`, at)],
    dates: [
      field(
        'schedule.dates',
        'Times',
        dates,
        'One per line: an instant (2027-01-01T09:00:00+01:00) or a wall-clock time and its zone (2027-03-28T02:30:00 Europe/Berlin)',
      ),
    ],
    now: [h('p', { class: 'muted' }, 'It runs once, as soon as it is created.')],
  };
  const kindFields = h('div');
  kinds.append(kindFields);
  const preview = h('div', { 'aria-live': 'polite', id: 'preview' });
  const general = h('div', { role: 'alert' });

  const form = h(
    'form',
    {
      novalidate: true,
      onsubmit: (ev) => {
        ev.preventDefault();
        save();
      },
    },
    general,
    field('name', 'Name', name),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Binary'),
      field('binaryId', 'A binary you uploaded', binary),
      field('binary', 'or upload one', file, 'It is hashed here, then sent straight to storage'),
      progress,
    ),
    kinds,
    field('args', 'Arguments (one per line)', args),
    field('env', 'Environment (KEY=VALUE, one per line)', env),
    field('labels', 'Labels (key=value, comma-separated)', labelsIn),
    h(
      'div',
      { class: 'toolbar' },
      field('timeoutSeconds', 'Timeout (seconds)', timeout),
      field('maxAttempts', 'Attempts', attempts),
    ),
    h(
      'div',
      { class: 'toolbar' },
      field(
        'overlap',
        'While another run runs',
        overlap,
        'allow: both run; forbid: this one is skipped; queue: it waits',
      ),
      field(
        'maxConcurrency',
        'Runs at once',
        concurrency,
        'With forbid or queue: how many may run together (empty: 1)',
      ),
      field('priority', 'Lane', lane, 'high is served first; low still gets its share'),
    ),
    policy.elements,
    h('button', { type: 'submit', class: 'primary' }, job ? 'Save' : 'Create job'),
    ' ',
    h('a', { class: 'button', href: job ? `#/jobs/${seg(job.id)}` : '#/jobs' }, 'Cancel'),
  );

  main.append(
    h('h1', {}, job ? `Edit ${job.name}` : 'New job'),
    h(
      'div',
      { class: 'cols' },
      form,
      h('section', { 'aria-labelledby': 'preview-h' }, h('h2', { id: 'preview-h' }, 'Next fire times'), preview),
    ),
  );

  function chosenKind() {
    return form.querySelector('input[name=kind]:checked').value;
  }

  function spec() {
    // A time left as it was shown is sent as the API gave it (to the millisecond), so an unchanged job stays so.
    const iso = (input, was) => (was && input.value === toInput(was, tz) ? was : fromInput(input.value, tz));
    switch (chosenKind()) {
      case 'cron':
        return {
          type: 'cron',
          expression: expression.value.trim(),
          timezone: zone.value.trim(),
          start: s.type === 'cron' ? s.start : undefined,
          end: s.type === 'cron' ? s.end : undefined,
          dstGap: s.dstGap,
          dstOverlap: s.dstOverlap,
        };
      case 'interval':
        return { type: 'interval', every: every.value.trim(), start: iso(start, s.start), end: iso(end, s.end) };
      case 'once':
        return { type: 'once', at: at.value ? iso(at, s.at) : '' };
      case 'dates':
        return { type: 'dates', dates: lines(dates.value).map(dateEntry) };
      default:
        return { type: 'now' };
    }
  }

  function clearErrors() {
    general.replaceChildren();
    form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
    form.querySelectorAll('.field .error').forEach((el) => {
      el.textContent = '';
    });
  }

  /** Puts each of the problem's field errors on its field; what names no field here goes above the form. */
  function showProblem(p, prefix = '') {
    const unplaced = [];
    const entries = Object.entries(p.fields || {});
    for (const [f, message] of entries) {
      const path = prefix + f;
      // The field named, or the nearest one holding it: webhook.on[2] on webhook.on, secrets.X on secrets.
      const tries = [];
      for (let q = path; q;) {
        tries.push(q);
        const up = q.replace(/(\.[^.[\]]*|\[\d+\])$/, '');
        q = up === q ? '' : up;
      }
      const holder = tries
        .map((t) => form.querySelector(`.field[data-field="${CSS.escape(t)}"]`))
        .find((x) => x && !x.hidden);
      if (holder && holder.isConnected) {
        holder.querySelector('input, select, textarea').setAttribute('aria-invalid', 'true');
        const err = holder.querySelector('.error');
        err.textContent = err.textContent ? `${err.textContent}; ${message}` : `${f}: ${message}`;
      } else {
        unplaced.push(`${f}: ${message}`);
      }
    }
    if (unplaced.length || !entries.length) {
      general.replaceChildren(
        h(
          'div',
          { class: 'problem' },
          p.message,
          unplaced.length
            ? h(
                'ul',
                {},
                unplaced.map((u) => h('li', {}, u)),
              )
            : null,
        ),
      );
    }
  }

  let previewTimer = null;
  let previewSeq = 0;
  function schedulePreview() {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(async () => {
      const mine = ++previewSeq;
      form.querySelectorAll('[data-field^="schedule."]').forEach((f) => {
        f.querySelector('[aria-invalid]')?.removeAttribute('aria-invalid');
        f.querySelector('.error').textContent = '';
      });
      try {
        const p = await api.post('/v1/schedules/preview', { schedule: spec(), count: 10 });
        if (mine === previewSeq)
          preview.replaceChildren(
            occurrences(p),
            p.timezone
              ? h('p', { class: 'muted' }, `Shown in ${shownZone(p.timezone)}; the schedule's clock is ${p.timezone}.`)
              : null,
          );
      } catch (e) {
        if (mine !== previewSeq) return;
        preview.replaceChildren(h('p', { class: 'muted' }, 'No preview while the schedule has an error.'));
        if (e instanceof Problem)
          showProblem(e, e.fields && Object.keys(e.fields).some((f) => f.startsWith('schedule')) ? '' : 'schedule.');
      }
    }, 300);
  }

  function showKind() {
    kindFields.replaceChildren(...parts[chosenKind()]);
    schedulePreview();
  }

  async function loadBinaries(selected) {
    const page = await api.get(query('/v1/binaries', { limit: 100 }));
    const ready = page.items.filter((b) => b.uploaded);
    binary.replaceChildren(
      h('option', { value: '' }, ready.length ? 'Choose…' : 'None yet: upload one'),
      ...ready.map((b) =>
        h(
          'option',
          { value: b.id, selected: b.id === selected },
          `${b.name} (${b.sha256.slice(0, 12)}, ${when(b.createdAt, tz)})`,
        ),
      ),
    );
    if (selected && !ready.some((b) => b.id === selected)) {
      binary.append(h('option', { value: selected, selected: true }, selected));
    }
  }

  file.addEventListener('change', async () => {
    if (!file.files.length) return;
    const f = file.files[0];
    progress.hidden = false;
    progress.value = 0;
    say(`Uploading ${f.name}…`);
    try {
      const { binary: b, reused } = await uploadBinary(f, (x) => {
        progress.value = x;
      });
      progress.value = 1;
      await loadBinaries(b.id);
      say(reused ? `${f.name} was uploaded before: that binary is chosen.` : `${f.name} uploaded (${b.size} bytes).`);
    } catch (e) {
      say(e.message, true);
      if (e instanceof Problem)
        showProblem(
          e.fields && Object.keys(e.fields).length ? e : new Problem(e.status, { detail: e.message, field: 'binary' }),
        );
    }
  });

  async function save() {
    clearErrors();
    const more = policy.read();
    if (more.errors.length) {
      showProblem(new Problem(422, { detail: 'The form has errors.', errors: more.errors }));
      form.querySelector('[aria-invalid="true"]')?.focus();
      return;
    }
    const body = {
      ...more.body,
      name: name.value.trim(),
      binaryId: binary.value || undefined,
      args: argLines(args.value),
      env: pairs(env.value) || undefined,
      labels: pairs(labelsIn.value, /[\n,]/) || undefined,
      schedule: spec(),
      timeoutSeconds: timeout.value ? Number(timeout.value) : undefined,
      maxAttempts: attempts.value ? Number(attempts.value) : undefined,
      overlap: overlap.value,
      maxConcurrency: concurrency.value ? Number(concurrency.value) : undefined,
      priority: lane.value,
    };
    try {
      const saved = job
        ? await api.put(`/v1/jobs/${seg(job.id)}`, body, existing.etag)
        : await api.post('/v1/jobs', body);
      sayNext(job ? `Saved ${saved.name} (version ${saved.version}).` : `Created ${saved.name}.`);
      location.hash = `#/jobs/${seg(saved.id)}`;
    } catch (e) {
      if (!(e instanceof Problem)) throw e;
      showProblem(e);
      say(e.message, true);
      const first = form.querySelector('[aria-invalid="true"]');
      if (first) first.focus();
    }
  }

  form.addEventListener('change', (ev) => {
    if (ev.target.name === 'kind') showKind();
  });
  [expression, zone, every, start, end, at, dates].forEach((i) => i.addEventListener('input', schedulePreview));
  showKind();
  await loadBinaries(job ? job.binaryId : null);
}
