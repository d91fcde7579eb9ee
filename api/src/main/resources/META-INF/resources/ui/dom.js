// Building the page: every value from the API goes in as text (textContent), never as HTML.

/** An element: attributes (on* are listeners, booleans toggle), then children (strings, nodes, arrays, null). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function badge(state, title, text = state) {
  return h('span', { class: `badge ${state}`, title }, text);
}

/** Milliseconds as a short duration: 850 ms, 12.3 s, 4 min 2 s, 3 h 5 min, 2 d 4 h. */
export function millis(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  const a = Math.abs(ms);
  const sign = ms < 0 ? '-' : '';
  if (a < 1000) return `${Math.round(ms)} ms`;
  if (a < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (a < 3_600_000) return `${sign}${Math.floor(a / 60_000)} min ${Math.floor((a % 60_000) / 1000)} s`;
  if (a < 86_400_000) return `${sign}${Math.floor(a / 3_600_000)} h ${Math.floor((a % 3_600_000) / 60_000)} min`;
  return `${sign}${Math.floor(a / 86_400_000)} d ${Math.floor((a % 86_400_000) / 3_600_000)} h`;
}

export function between(from, to) {
  return from && to ? millis(new Date(to) - new Date(from)) : '';
}

export function labels(map) {
  return Object.entries(map || {}).map(([k, v]) => h('span', { class: 'label' }, `${k}=${v}`));
}

/** A labelled field: `text` labels `control` (by its id); then whatever else the field shows (a hint, an error). */
export function field(text, control, ...more) {
  return h('div', { class: 'field' }, h('label', { for: control.id }, text), control, ...more);
}

/** A list's filters in a toolbar: submitting them calls `search` instead of leaving the page. */
export function searchForm(search, ...children) {
  return h(
    'form',
    {
      class: 'toolbar',
      role: 'search',
      onsubmit: (ev) => {
        ev.preventDefault();
        search();
      },
    },
    ...children,
  );
}

/** The button under a list that reads its next page (`load(cursor)`); nothing after the last page. */
export function loadMore(page, load) {
  return page.nextCursor ? h('button', { type: 'button', onclick: () => load(page.nextCursor) }, 'Load more') : '';
}

let next = '';

/** What the status line says once the page this action goes to is drawn (drawing a page clears the line). */
export function sayNext(text) {
  next = text;
}

/** The message left by sayNext, once. */
export function takeNext() {
  const t = next;
  next = '';
  return t;
}

/** The status line under the header: what just happened, or what went wrong. */
export function say(text, error = false) {
  // The sign-in page says its own errors on its field: a page's failed read that lands after the reader was sent
  // there (a 401) is not news.
  if (error && location.hash === '#/sign-in') return;
  const s = document.getElementById('status');
  s.textContent = text || '';
  s.classList.toggle('error', error);
}

/** A table in a container that scrolls sideways on its own when the page is narrower than the table. */
export function table(columns, rows, empty, label) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': label || 'Table' },
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.title)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r))),
          ),
        ),
      ),
    ),
  );
}
