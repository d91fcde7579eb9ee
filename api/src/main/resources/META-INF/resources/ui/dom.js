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

export function badge(state, title) {
  return h('span', { class: `badge ${state}`, title }, state);
}

/** An instant in the reader's zone, to the second: 2026-11-25 07:04:05. */
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A time element: the reader's local time, the exact instant on hover. */
export function time(iso) {
  return iso ? h('time', { datetime: iso, title: iso }, when(iso)) : h('span', { class: 'muted' }, '—');
}

/** Milliseconds as a short duration: 850 ms, 12.3 s, 4 min 2 s. */
export function millis(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

export function between(from, to) {
  return from && to ? millis(new Date(to) - new Date(from)) : '';
}

export function labels(map) {
  return Object.entries(map || {}).map(([k, v]) => h('span', { class: 'label' }, `${k}=${v}`));
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
  const s = document.getElementById('status');
  s.textContent = text || '';
  s.classList.toggle('error', error);
}

export function table(columns, rows, empty) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h('table', {},
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.title)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, columns.map((c) => h('td', { class: c.num ? 'num' : null }, c.cell(r)))))));
}
