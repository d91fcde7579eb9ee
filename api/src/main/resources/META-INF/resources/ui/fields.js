// The job form's fields beyond name, binary and schedule: each labelled, each named by its path in the request
// (limits.memoryMb) so that an error the API names lands on it, each filled from the job and read back so that a
// job saved unchanged is sent exactly as the API showed it (the API then keeps its version).
import { h } from './dom.js';

/** A labelled control whose errors the API can name: `name` is the field's path in the request (schedule.every). */
export function field(name, label, input, hint) {
  const id = `f-${name.replace(/\W/g, '-')}`;
  input.id = id;
  input.name = name;
  const error = h('span', { class: 'error', id: `${id}-error` });
  input.setAttribute('aria-describedby', `${id}-error${hint ? ` ${id}-hint` : ''}`);
  return h(
    'div',
    { class: 'field', 'data-field': name },
    h('label', { for: id }, label),
    input,
    hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null,
    error,
  );
}

/** KEY=VALUE entries, split by `sep` (a line break; labels also take commas), as a map; null when there are none. */
export function pairs(text, sep = /\n/) {
  const out = {};
  for (const l of text
    .split(sep)
    .map((x) => x.trim())
    .filter(Boolean)) {
    const i = l.indexOf('=');
    out[i < 0 ? l : l.slice(0, i)] = i < 0 ? '' : l.slice(i + 1);
  }
  return Object.keys(out).length ? out : null;
}

const num = (v) => (v === '' ? undefined : Number(v));
const text = (v) => (v.trim() === '' ? undefined : v.trim());
const select = (values, chosen) =>
  h(
    'select',
    {},
    values.map(([v, t]) => h('option', { value: v, selected: v === chosen }, t)),
  );
const input = (value, attrs = {}) => h('input', { size: 12, spellcheck: 'false', ...attrs, value: value ?? '' });

export const OUTCOMES = ['SUCCEEDED', 'FAILED', 'DEAD', 'CANCELLED', 'SKIPPED', 'OVERDUE'];
const LIMITS = [
  ['processes', 'Processes'],
  ['memoryMb', 'Memory (MiB)'],
  ['openFiles', 'Open files'],
  ['fileSizeMb', 'File size (MiB)'],
  ['cpuSeconds', 'CPU seconds'],
  ['diskMb', 'Disk (MiB)'],
];

/**
 * The policy, limits, secrets, webhook and expectation fields of `job` (null: a new job). Returns the fieldsets
 * and `read()`, which gives their part of the request body; a value it cannot read (bad JSON) is named in
 * `read().errors` as the API would name it.
 */
export function policyFields(job) {
  const j = job || {};
  const noRetry = input((j.nonRetryableExitCodes || []).join(', '), { size: 16, inputmode: 'numeric' });
  const jitterMode = select(
    [
      ['', 'none'],
      ['random', 'random'],
      ['hashed', 'hashed (the same for a job each time)'],
    ],
    j.jitter ? j.jitter.mode : '',
  );
  const jitterMax = input(j.jitter ? j.jitter.max : '', { placeholder: 'PT30S' });
  const cu = j.catchUp || {};
  const catchMode = select(
    [
      ['', 'default (all)'],
      ['skip', 'skip'],
      ['latest', 'latest'],
      ['all', 'all'],
    ],
    cu.mode || '',
  );
  const catchAge = input(cu.maxAge, { placeholder: 'PT24H' });
  const catchRuns = input(cu.maxRuns, { type: 'number', min: 1, size: 6 });
  const maxRunAge = input(j.maxRunAge, { placeholder: 'PT24H' });
  const limits = LIMITS.map(([k, t]) => [
    k,
    t,
    input(j.limits ? j.limits[k] : '', { type: 'number', min: 1, size: 8 }),
  ]);
  const secrets = h('textarea', { rows: 2, cols: 40, spellcheck: 'false', autocomplete: 'off' });
  const kept = (j.secrets || []).length ? `Kept unless you type new ones: ${j.secrets.join(', ')}. ` : '';
  const dropSecrets = (j.secrets || []).length ? h('input', { type: 'checkbox', id: 'f-secrets-none' }) : null;
  const hookUrl = input(j.webhook ? j.webhook.url : '', {
    size: 40,
    type: 'url',
    placeholder: 'https://hooks.example.com/punctual',
  });
  const hookSecret = input('', { size: 40, type: 'password', autocomplete: 'new-password' });
  const on = new Set(j.webhook ? j.webhook.on || [] : []);
  const hookOn = OUTCOMES.map((o) => [
    o,
    h('input', { type: 'checkbox', value: o, checked: on.has(o), id: `f-webhook-on-${o}` }),
  ]);
  const ex = j.expect || {};
  const expectKind = select(
    [
      ['', 'nothing'],
      ['every', 'a success at least every …'],
      ['by', 'a success before each time of a schedule'],
    ],
    ex.every ? 'every' : ex.by ? 'by' : '',
  );
  const expectEvery = input(ex.every, { placeholder: 'PT25H' });
  const expectBy = h('textarea', { rows: 2, cols: 40, spellcheck: 'false' }, ex.by ? JSON.stringify(ex.by) : '');

  const expectEveryField = field('expect.every', 'At least every', expectEvery, 'An ISO-8601 duration, PT1M to P366D');
  const expectByField = field(
    'expect.by',
    'Before each time of',
    expectBy,
    'A schedule as JSON, e.g. {"type": "cron", "expression": "0 6 * * *", "timezone": "Europe/Paris"}',
  );
  const showExpect = () => {
    expectEveryField.hidden = expectKind.value !== 'every';
    expectByField.hidden = expectKind.value !== 'by';
  };
  expectKind.addEventListener('change', showExpect);
  showExpect();

  const elements = [
    h(
      'fieldset',
      {},
      h('legend', {}, 'Retries and timing'),
      h(
        'div',
        { class: 'toolbar' },
        field(
          'nonRetryableExitCodes',
          'Exit codes not retried',
          noRetry,
          'Comma-separated, 1-255: the run is dead at once',
        ),
        field('maxRunAge', 'Oldest a run may start', maxRunAge, 'ISO-8601; older ones are skipped'),
        field('jitter.mode', 'Jitter', jitterMode),
        field('jitter.max', 'Jitter up to', jitterMax, 'e.g. PT30S'),
      ),
      h(
        'div',
        { class: 'toolbar' },
        field('catchUp.mode', 'Catch-up of missed runs', catchMode),
        field('catchUp.maxAge', 'Missed within', catchAge, 'ISO-8601'),
        field('catchUp.maxRuns', 'At most runs', catchRuns),
      ),
    ),
    h(
      'fieldset',
      { 'data-field': 'limits' },
      h('legend', {}, "Limits of one run (empty: the deployment's maximum)"),
      h(
        'div',
        { class: 'toolbar' },
        limits.map(([k, t, i]) => field(`limits.${k}`, t, i)),
      ),
    ),
    field(
      'secrets',
      'Secrets (NAME=value, one per line)',
      secrets,
      `${kept}Values are never shown again; the binary gets them as environment variables.`,
    ),
    dropSecrets
      ? h(
          'div',
          { class: 'field' },
          h('label', { class: 'inline', for: 'f-secrets-none' }, dropSecrets, 'Remove all its secrets'),
        )
      : null,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Webhook (run outcomes posted to a URL)'),
      field('webhook.url', 'URL (empty: none)', hookUrl),
      field(
        'webhook.secret',
        'Signing secret',
        hookSecret,
        j.webhook
          ? '16 to 256 characters; empty keeps the current one'
          : '16 to 256 characters: the key its posts are signed with',
      ),
      h(
        'div',
        { class: 'field', 'data-field': 'webhook.on', role: 'group', 'aria-labelledby': 'f-webhook-on-legend' },
        h('span', { id: 'f-webhook-on-legend', class: 'label-like' }, 'Posted on (none: DEAD and SKIPPED)'),
        h(
          'div',
          { class: 'kinds' },
          hookOn.map(([o, c]) => h('label', { class: 'inline', for: c.id }, c, o)),
        ),
        h('span', { class: 'error', id: 'f-webhook-on-error' }),
      ),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Expect (watched for missing successes)'),
      field('expect', 'Expect', expectKind),
      expectEveryField,
      expectByField,
    ),
  ];

  function read() {
    const errors = [];
    const codes = noRetry.value
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map(Number);
    const limitValues = Object.fromEntries(
      limits.map(([k, , i]) => [k, num(i.value)]).filter(([, v]) => v !== undefined),
    );
    let by;
    if (expectKind.value === 'by') {
      try {
        by = JSON.parse(expectBy.value);
      } catch (e) {
        errors.push({ field: 'expect.by', message: `is not JSON (${e.message})` });
      }
    }
    const body = {
      nonRetryableExitCodes: codes.length ? codes : undefined,
      maxRunAge: text(maxRunAge.value),
      jitter: jitterMode.value ? { mode: jitterMode.value, max: text(jitterMax.value) } : undefined,
      catchUp:
        catchMode.value || text(catchAge.value) || catchRuns.value
          ? { mode: catchMode.value || undefined, maxAge: text(catchAge.value), maxRuns: num(catchRuns.value) }
          : undefined,
      limits: Object.keys(limitValues).length ? limitValues : undefined,
      secrets: pairs(secrets.value) || (dropSecrets && dropSecrets.checked ? {} : undefined),
      webhook: text(hookUrl.value)
        ? {
            url: text(hookUrl.value),
            secret: hookSecret.value === '' ? undefined : hookSecret.value,
            on: hookOn.filter(([, c]) => c.checked).map(([o]) => o),
          }
        : undefined,
      expect:
        expectKind.value === 'every'
          ? { every: text(expectEvery.value) }
          : expectKind.value === 'by'
            ? { by }
            : undefined,
    };
    return { body, errors };
  }

  return { elements, read };
}
