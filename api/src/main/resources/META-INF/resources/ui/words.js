// Schedules in words. The API's preview is the authority on when a schedule fires; this only names it.
import { when } from './time.js';

const UNITS = [
  ['D', 'day'],
  ['H', 'hour'],
  ['M', 'minute'],
  ['S', 'second'],
];

/** An ISO-8601 duration in words: PT90M → "90 minutes", P1D → "1 day"; as written when it is not that simple. */
export function duration(iso) {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(iso || '');
  if (!m) return iso;
  const parts = [];
  [m[1], m[2], m[3], m[4]].forEach((n, i) => {
    if (n && Number(n) !== 0) parts.push(`${n} ${UNITS[i][1]}${Number(n) === 1 ? '' : 's'}`);
  });
  return parts.length ? parts.join(' ') : iso;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** A cron expression in words for the common shapes (minute hour * * dow); the expression itself otherwise. */
export function cron(expr) {
  const f = (expr || '').trim().split(/\s+/);
  if (f.length !== 5) return null;
  const [min, hour, dom, mon, dow] = f;
  const num = (s) => /^\d+$/.test(s);
  if (dom !== '*' || mon !== '*') return null;
  let at;
  if (num(min) && num(hour)) at = `at ${hour.padStart(2, '0')}:${min.padStart(2, '0')}`;
  else if (num(min) && hour === '*') at = `at minute ${min} of every hour`;
  else if (/^\*\/\d+$/.test(min) && hour === '*') at = `every ${min.slice(2)} minutes`;
  else if (min === '*' && hour === '*') at = 'every minute';
  else return null;
  if (dow === '*') return num(min) && num(hour) ? `every day ${at}` : at;
  if (dow === '1-5' || dow.toUpperCase() === 'MON-FRI') return `weekdays, ${at}`;
  if (num(dow) && Number(dow) <= 7) return `every ${DAYS[Number(dow)]}, ${at}`;
  return null;
}

/** A job's schedule in a few words. */
export function schedule(s) {
  if (!s) return '';
  switch (s.type) {
    case 'now':
      return 'once, now';
    case 'once':
      return `once at ${when(s.at)}`;
    case 'interval':
      return `every ${duration(s.every)}${s.end ? ` until ${when(s.end)}` : ''}`;
    case 'dates':
      return `on ${s.dates.length} date${s.dates.length === 1 ? '' : 's'}`;
    case 'cron': {
      const words = cron(s.expression);
      return `${words || `cron ${s.expression}`} (${s.timezone || 'UTC'})`;
    }
    default:
      return s.type;
  }
}

export const DST = {
  'gap-shifted': 'moved: this wall-clock time does not exist on the day clocks go forward',
  'overlap-first': 'the first of two: this wall-clock time happens twice as clocks go back',
  'overlap-second': 'the second of two: this wall-clock time happens twice as clocks go back',
};
