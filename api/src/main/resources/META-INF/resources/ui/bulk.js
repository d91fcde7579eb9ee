// One action on a selection of rows: a checkbox per row and one for all, the action sent for each chosen row a few
// at a time (well inside the API's throttling), and each row's own outcome shown on it: an error is never swallowed.
import { h, say } from './dom.js';

const AT_ONCE = 4;

/** Calls `fn` on each item, at most `n` at a time; resolves to [item, result, error] for each, in order. */
export async function atMost(items, n, fn, onEach) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = [items[i], await fn(items[i]), null];
      } catch (e) {
        out[i] = [items[i], null, e];
      }
      if (onEach) onEach(...out[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/**
 * A selection over rows: `key(row)` names a row; `label(row)` says it for the checkbox's label. The page draws
 * `checkbox(row)` in each row and `all()` in the header, `outcome(row)` where a row's result shows, and calls
 * `run(...)` from its buttons.
 */
export function selection({ key, label, redraw }) {
  const chosen = new Set();
  const outcomes = new Map();
  let rows = [];
  const count = h('span', { class: 'muted', 'aria-live': 'polite' });
  const counted = () => {
    count.textContent = chosen.size ? `${chosen.size} selected` : 'none selected';
  };
  counted();
  return {
    count,
    setRows(r) {
      rows = r;
      for (const k of [...chosen]) if (!rows.some((x) => key(x) === k)) chosen.delete(k);
      counted();
    },
    chosenRows: () => rows.filter((r) => chosen.has(key(r))),
    checkbox: (r) =>
      h('input', {
        type: 'checkbox',
        class: 'pick',
        'aria-label': `Select ${label(r)}`,
        checked: chosen.has(key(r)),
        onchange: (ev) => {
          if (ev.target.checked) chosen.add(key(r));
          else chosen.delete(key(r));
          counted();
          const all = ev.target.closest('table')?.querySelector('thead input.pick');
          if (all) all.checked = rows.every((x) => chosen.has(key(x)));
        },
      }),
    all: () =>
      h('input', {
        type: 'checkbox',
        class: 'pick',
        'aria-label': 'Select all',
        checked: rows.length > 0 && rows.every((r) => chosen.has(key(r))),
        onchange: (ev) => {
          rows.forEach((r) => (ev.target.checked ? chosen.add(key(r)) : chosen.delete(key(r))));
          counted();
          ev.target
            .closest('table')
            ?.querySelectorAll('tbody input.pick')
            .forEach((c) => {
              c.checked = ev.target.checked;
            });
        },
      }),
    outcome: (r) => {
      const o = outcomes.get(key(r));
      if (!o) return '';
      return h('span', { class: o.error ? 'outcome error' : 'outcome ok', role: o.error ? 'alert' : null }, o.text);
    },
    /** Sends `fn(row)` for each chosen row; `done(row, result)` words a success. Returns the results. */
    async run(what, fn, done) {
      const picked = rows.filter((r) => chosen.has(key(r)));
      if (!picked.length) {
        say(`${what}: select some rows first.`, true);
        return [];
      }
      say(`${what}: ${picked.length} …`);
      picked.forEach((r) => outcomes.set(key(r), { text: '…' }));
      redraw();
      const results = await atMost(picked, AT_ONCE, fn, (r, result, error) => {
        outcomes.set(key(r), error ? { error: true, text: error.message } : { text: done(r, result) });
        redraw();
      });
      const failed = results.filter(([, , e]) => e).length;
      say(
        `${what}: ${picked.length - failed} done${failed ? `, ${failed} failed (said on their rows)` : ''}.`,
        failed > 0,
      );
      return results;
    },
  };
}
