/**
 * A CSV field as an input table's `update` takes it (OpenAPI `updateInputTable`: "All cell values must
 * be passed as strings"; docs/service-notes.md "Input tables"): a date as ISO `YYYY-MM-DD`, a date and
 * time as `YYYY-MM-DD HH:MM:SS`, a time as `HH:MM:SS`, a boolean as `true`/`false`, a number trimmed, a
 * null field as `''`. The field is read under the load definition's `format` (its strptime date formats
 * or epoch seconds, its boolean words), the same format the data-load API path uses (values.ts).
 *
 * Pure: no `vscode`, no I/O.
 */
import { isFamily, type ColumnDataType } from '../model';
import { expandStrptimeShorthands, valueCheck, type FullFormat } from './values';

/** Converts one field, or says why it cannot be: `{value}` or `{problem}`. */
export type InputValueConverter = (field: string | null) => { value: string } | { problem: string };

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The parts of a date and time read by a strptime format (the directives of values.ts `strptimeRegExp`). */
interface DateParts {
  y: number;
  m: number;
  d: number;
  H: number;
  M: number;
  S: number;
  frac: string;
}

/**
 * A reader of a strptime format: a regular expression with one group per directive and how each group
 * sets the parts. `%a %A %z` are matched and ignored (an offset is not applied: docs/service-notes.md).
 * @throws Error for a directive it does not know.
 */
function strptimeReader(format: string): (text: string) => DateParts | undefined {
  const expanded = expandStrptimeShorthands(format);
  let re = '';
  const setters: ((p: DateParts, g: string) => void)[] = [];
  let pm: boolean | undefined;
  const group = (pattern: string, set: (p: DateParts, g: string) => void): void => {
    re += `(${pattern})`;
    setters.push(set);
  };
  for (let i = 0; i < expanded.length; i++) {
    const ch = expanded[i]!;
    if (ch !== '%') {
      re += /\s/.test(ch) ? '\\s+' : ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      continue;
    }
    const d = expanded[++i];
    switch (d) {
      case 'Y': group('\\d{4}', (p, g) => (p.y = Number(g))); break;
      case 'y': group('\\d{2}', (p, g) => (p.y = Number(g) + (Number(g) < 69 ? 2000 : 1900))); break;
      case 'm': group('\\d{1,2}', (p, g) => (p.m = Number(g))); break;
      case 'd':
      case 'e': group(' ?\\d{1,2}', (p, g) => (p.d = Number(g.trim()))); break;
      case 'H':
      case 'I': group('\\d{1,2}', (p, g) => (p.H = Number(g))); break;
      case 'M': group('\\d{1,2}', (p, g) => (p.M = Number(g))); break;
      case 'S': group('\\d{1,2}(?:[.,]\\d{1,9})?', (p, g) => { const [s, f] = g.split(/[.,]/); p.S = Number(s); p.frac = f ?? ''; }); break;
      case 'f': group('\\d{1,9}', (p, g) => (p.frac = g)); break;
      case 'p': group('am|pm', (_p, g) => (pm = g.toLowerCase() === 'pm')); break;
      case 'b':
      case 'h':
      case 'B': group('[a-z]{3,9}', (p, g) => (p.m = MONTHS.indexOf(g.slice(0, 3).toLowerCase()) + 1)); break;
      case 'a':
      case 'A': re += '[a-z]{3,9}'; break;
      case 'z': re += '(?:z|[+-]\\d{2}(?::?\\d{2})?)'; break;
      case '%': re += '%'; break;
      default:
        throw new Error(`the date/time format "${format}" has the directive %${d ?? ''}, which is not supported`);
    }
  }
  const rx = new RegExp(`^${re}$`, 'i');
  return (text) => {
    const m = rx.exec(text.trim());
    if (!m) return undefined;
    const p: DateParts = { y: 1970, m: 1, d: 1, H: 0, M: 0, S: 0, frac: '' };
    pm = undefined;
    setters.forEach((set, k) => set(p, m[k + 1]!));
    if (pm !== undefined) p.H = (p.H % 12) + (pm ? 12 : 0);
    const check = new Date(Date.UTC(p.y, p.m - 1, p.d));
    if (p.m < 1 || p.m > 12 || check.getUTCDate() !== p.d || p.H > 23 || p.M > 59 || p.S > 60) return undefined;
    return p;
  };
}

function partsOfEpoch(seconds: string): DateParts {
  const t = new Date(Number(seconds) * 1000);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), H: t.getUTCHours(), M: t.getUTCMinutes(), S: t.getUTCSeconds(), frac: '' };
}

const isoDate = (p: DateParts): string => `${pad(p.y, 4)}-${pad(p.m)}-${pad(p.d)}`;
const isoTime = (p: DateParts): string => `${pad(p.H)}:${pad(p.M)}:${pad(p.S)}${p.frac ? `.${p.frac}` : ''}`;

/**
 * The converter of one column type under `format`: the field is first checked as the data-load API path
 * checks it (`valueCheck`), then written as the input table takes it.
 * @throws Error when a strptime format of `format` has a directive this module does not know.
 */
export function inputValueConverter(type: ColumnDataType, format: FullFormat): InputValueConverter {
  const check = valueCheck(type, format);
  const blank = (v: string | null): boolean => v === null || v.trim() === '';
  const dt = format.date_time;
  const epoch = dt.converted_to_epoch && format.type === 'csv';
  const dateReader = isFamily(type, 'date') || type === 'TIME' ? strptimeReader(type === 'DATE' ? dt.date_format : type === 'DATE_TIME' ? dt.date_time_format : dt.time_format) : undefined;
  return (field) => {
    const problem = check(field);
    if (problem) return { problem };
    if (blank(field)) return { value: isFamily(type, 'text') ? (field ?? '') : '' };
    const v = field!;
    switch (type) {
      case 'VARCHAR':
      case 'CHAR':
        return { value: v };
      case 'BOOL': {
        const t = v.trim().toLowerCase();
        const yes = format.boolean.use_bit_values && format.type === 'csv' ? t === '1' || t === '0x1' : t === format.boolean.true_format.toLowerCase();
        return { value: yes ? 'true' : 'false' };
      }
      case 'DATE':
      case 'DATE_TIME':
      case 'TIME': {
        const p = epoch && type !== 'TIME' ? partsOfEpoch(v.trim()) : dateReader!(v);
        if (!p) return { problem: `"${v}" is not a valid ${type}` };
        return { value: type === 'DATE' ? isoDate(p) : type === 'TIME' ? isoTime(p) : `${isoDate(p)} ${isoTime(p)}` };
      }
      default:
        return { value: v.trim() };
    }
  };
}
