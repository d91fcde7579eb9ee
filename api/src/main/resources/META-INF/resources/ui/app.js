// The dashboard: a page per hash route, each drawn from the HTTP API. A page may return a function that stops what
// it left running (a followed log, a refresh timer); it is called when the reader goes elsewhere.
import { api, token } from './api.js';
import { h, say, takeNext, field } from './dom.js';
import { jobsPage } from './jobs.js';
import { jobPage } from './job.js';
import { runPage } from './run.js';
import { runsPage } from './runs.js';
import { CHOICES, browserZone, preference, setPreference, setPageZone } from './time.js';
import { editorPage } from './editor.js';
import { deadLettersPage } from './dead.js';

const routes = [
  [/^#\/jobs$/, jobsPage],
  [/^#\/jobs\/([^/]+)$/, jobPage],
  [/^#\/jobs\/([^/]+)\/edit$/, (main, id) => editorPage(main, id)],
  [/^#\/jobs\/([^/]+)\/runs\/([^/]+)$/, runPage],
  [/^#\/new$/, (main) => editorPage(main, null)],
  [/^#\/runs(?:\?.*)?$/, runsPage],
  [/^#\/dead-letters$/, deadLettersPage],
  [/^#\/sign-in$/, signInPage],
];

let stop = null;
let generation = 0;

async function render() {
  const hash = location.hash || '#/jobs';
  if (stop) {
    stop();
    stop = null;
  }
  const main = document.getElementById('main');
  const mine = ++generation;
  main.replaceChildren();
  setPageZone(null);
  say(takeNext());
  document.querySelectorAll('.top nav a').forEach((a) => {
    const href = a.getAttribute('href');
    a.toggleAttribute('aria-current', hash === href || hash.startsWith(`${href}/`) || hash.startsWith(`${href}?`));
  });
  const route = routes.find(([re]) => re.test(hash));
  if (!route) {
    main.append(h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/jobs' }, 'Back to the jobs')));
    return;
  }
  const args = route[0].exec(hash).slice(1).map(decodeURIComponent);
  try {
    const cleanup = await route[1](main, ...args);
    if (mine === generation) stop = cleanup || null;
    else if (cleanup) cleanup();
  } catch (e) {
    if (mine !== generation || e.name === 'AbortError') return;
    if (e.status === 401) return; // the sign-in page is on its way
    main.append(h('div', { class: 'problem', role: 'alert' }, e.message));
  }
  if (mine === generation) {
    const title = main.querySelector('h1');
    document.title = title ? `${title.firstChild ? title.firstChild.textContent : ''} · Punctual` : 'Punctual';
  }
}

// Whether this API has asked for a token (a 401): a runner without --auth never does, and offers no sign-in.
let tokenNeeded = false;

function who() {
  const w = document.getElementById('who');
  w.replaceChildren();
  if (token.get()) {
    w.append(
      'Signed in',
      h(
        'button',
        {
          type: 'button',
          onclick: () => {
            token.clear();
            who();
            location.hash = '#/sign-in';
          },
        },
        'Sign out',
      ),
    );
  } else if (tokenNeeded) {
    w.append(h('a', { href: '#/sign-in' }, 'Sign in'));
  }
}

/** Paste a bearer token: the identity provider's, or bin/local-token's for a local runner started with --auth. */
async function signInPage(main) {
  const input = h('textarea', {
    id: 'token',
    rows: 4,
    cols: 80,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'token-hint token-error',
  });
  const error = h('p', { id: 'token-error', class: 'error' });
  const form = h(
    'form',
    {
      onsubmit: async (ev) => {
        ev.preventDefault();
        error.textContent = '';
        const previous = token.get();
        token.set(input.value.trim());
        try {
          await api.get('/v1/jobs?limit=1');
          who();
          location.hash = '#/jobs';
        } catch (e) {
          if (previous) token.set(previous);
          else token.clear();
          who();
          input.setAttribute('aria-invalid', 'true');
          error.textContent = e.message;
        }
      },
    },
    field(
      'Bearer token',
      input,
      h(
        'span',
        { id: 'token-hint', class: 'hint' },
        'A JWT from your identity provider. For a local runner started with --auth: bin/local-token YOUR-NAME. ',
        'It is kept in this tab only and sent to this API only.',
      ),
      error,
    ),
    h('button', { class: 'primary', type: 'submit' }, 'Sign in'),
  );
  main.append(
    h('h1', {}, 'Sign in'),
    h('p', {}, 'This API shows each caller its own jobs only: sign in with your token.'),
    form,
  );
  input.focus();
}

window.addEventListener('punctual:unauthorized', () => {
  tokenNeeded = true;
  if (location.hash !== '#/sign-in') {
    token.clear();
    location.hash = '#/sign-in';
  }
  who();
});

// The skip link's #main would be taken for a route: it moves the focus itself instead.
document.querySelector('.skip').addEventListener('click', (ev) => {
  ev.preventDefault();
  document.getElementById('main').focus();
});

window.addEventListener('hashchange', async () => {
  await render();
  document.getElementById('main').focus({ preventScroll: true });
});

/** The header's switch: which zone every time on the page is shown in; the page is drawn again when it changes. */
function zoneSwitch() {
  const select = document.getElementById('zone');
  select.replaceChildren(
    ...CHOICES.map(([v, t]) =>
      h('option', { value: v, selected: v === preference() }, v === 'browser' ? `${t} (${browserZone()})` : t),
    ),
  );
  select.addEventListener('change', () => {
    setPreference(select.value);
    render();
  });
}

zoneSwitch();
who();
render();
