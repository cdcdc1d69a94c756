/**
 * Converting the text fields of a record to the target column types (docs/service-interface.md §2.2
 * `format.date_time`, `format.boolean`), into the canonical text DuckDB reads back from the staged file:
 * - VARCHAR, CHAR: any text. INT32, INT64: optional sign and digits within the type's range.
 * - FLOAT, DOUBLE: a decimal number with optional exponent, `inf`, `-inf`, `nan`.
 * - BOOL: `true_format` / `false_format` (case-insensitive); with `use_bit_values` (csv only) `0x1`/`0x0`,
 *   `1`/`0` or the bytes 0x01/0x00; staged as `true`/`false`.
 * - DATE, DATE_TIME: epoch seconds with `converted_to_epoch`, else `date_format` / `date_time_format`
 *   (strptime); TIME: `time_format`. Staged as `YYYY-MM-DD`, `… HH:MM:SS[.ffffff]`, `HH:MM:SS[.ffffff]`.
 * Non-text values are trimmed; an empty one is a null. Second fractions keep microseconds unless
 * `skip_second_fraction`. Epoch values and `%z` offsets are read in UTC.
 */
import type { ColumnDataType, ColumnTypeOf } from '../../../common/src/model';

/** The conversion options taken from a load definition's `format`. */
export interface ConvertOptions {
  /** The input format (`use_bit_values` is valid for csv only, docs/service-interface.md §2.2). */
  type: 'csv' | 'delimited';
  convertedToEpoch: boolean;
  dateTimeFormat: string;
  dateFormat: string;
  timeFormat: string;
  skipSecondFraction: boolean;
  useBitValues: boolean;
  trueFormat: string;
  falseFormat: string;
}

/** Why a field was rejected (allocated only for bad fields, so good rows allocate no result objects). */
export class Rejection {
  constructor(readonly reason: string) {}
}

/** A converted value: the staged text, `null` for SQL NULL, or a `Rejection`. */
export type Converted = string | null | Rejection;

/** Converts one field to a column type; never throws. `fn` comes from `makeConverter`. */
export type FieldConverter = (text: string | null) => Converted;

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOAT = /^[+-]?(?:inf|infinity|nan)$/i;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Largest finite 32-bit float. */
const FLOAT_MAX = 3.4028234663852886e38;

/**
 * Builds the converter of one column. Throws `Error` when a strptime format of `opts` has a directive
 * this module does not know (StartLoad checks the formats with `compileStrptime` first).
 */
export function makeConverter(type: ColumnDataType, opts: ConvertOptions): FieldConverter {
  switch (type) {
    case 'VARCHAR':
    case 'CHAR':
      return (t) => (t);
    case 'INT32':
    case 'INT64': {
      const is32 = type === 'INT32';
      return (t) => {
        if (t === null) return null;
        const s = t.trim();
        if (s === '') return null;
        if (!INT_RE.test(s)) return new Rejection(`'${t}' is not a whole number (${type})`);
        const digits = s.charCodeAt(0) === 43 ? s.slice(1) : s; // DuckDB reads no leading '+'
        if (s.length <= 9) return digits; // at most 9 digits: within INT32
        if (s.length <= 15) {
          const v = Number(s);
          if (is32 && (v < INT32_MIN || v > INT32_MAX)) return new Rejection(`${s} is out of the range of ${type}`);
          return digits;
        }
        const v = BigInt(s);
        if (is32 || v < INT64_MIN || v > INT64_MAX) return new Rejection(`${s} is out of the range of ${type}`);
        return v.toString();
      };
    }
    case 'FLOAT':
    case 'DOUBLE':
      return (t) => {
        if (t === null) return null;
        const s = t.trim();
        if (s === '') return null;
        if (FLOAT_RE.test(s)) {
          const v = Math.abs(Number(s));
          if (v === Infinity || (type === 'FLOAT' && v > FLOAT_MAX)) return new Rejection(`${s} is out of the range of ${type}`);
          return s;
        }
        if (SPECIAL_FLOAT.test(s)) return s.toLowerCase().replace('infinity', 'inf');
        return new Rejection(`'${t}' is not a number (${type})`);
      };
    case 'BOOL': {
      if (opts.useBitValues && opts.type === 'csv') {
        return (t) => {
          if (t === null || t === '') return null;
          if (t === '\u0001' || t === '0x1' || t === '1') return 'true';
          if (t === '\u0000' || t === '0x0' || t === '0') return 'false';
          return new Rejection(`'${t}' is not a bit value (0x0 or 0x1) for BOOL`);
        };
      }
      const tf = opts.trueFormat.toLowerCase();
      const ff = opts.falseFormat.toLowerCase();
      return (t) => {
        if (t === null) return null;
        const s = t.trim().toLowerCase();
        if (s === tf) return 'true';
        if (s === ff) return 'false';
        if (s === '') return null;
        return new Rejection(`'${t}' is neither '${opts.trueFormat}' (true) nor '${opts.falseFormat}' (false) for BOOL`);
      };
    }
    case 'DATE':
    case 'DATE_TIME':
      return dateConverter(type, opts);
    case 'TIME': {
      const parse = compileStrptimeInto(opts.timeFormat);
      const p = newParts();
      return (t) => {
        if (t === null) return null;
        const s = t.trim();
        if (s === '') return null;
        if (!parse(s, p)) return new Rejection(`'${t}' does not match the time_format '${opts.timeFormat}' (TIME)`);
        return isoTime(p.hour, p.minute, p.second, opts.skipSecondFraction ? 0 : p.micros);
      };
    }
  }
}

/**
 * The converter of a DATE or DATE_TIME column: epoch seconds when `converted_to_epoch`, else the
 * column's strptime format (`date_format` / `date_time_format`, seed §2.2), normalised to UTC; a value
 * out of DuckDB's range (years 1–9999) is a `Rejection`.
 */
function dateConverter(type: ColumnTypeOf<'date'>, opts: ConvertOptions): FieldConverter {
  const isDate = type === 'DATE';
  if (opts.convertedToEpoch) {
    return (t) => {
      if (t === null) return null;
      const s = t.trim();
      if (s === '') return null;
      if (!FLOAT_RE.test(s)) return new Rejection(`'${t}' is not an epoch value in seconds (${type}; converted_to_epoch is true)`);
      const seconds = Number(s);
      const whole = Math.floor(seconds);
      let micros = Math.round((seconds - whole) * 1e6);
      if (opts.skipSecondFraction) micros = 0;
      const d = new Date(whole * 1000);
      if (Number.isNaN(d.getTime()) || !inRange(d)) return new Rejection(`${s} is out of the range of ${type}`);
      return isDate ? isoDate(d) : `${isoDate(d)} ${isoTime(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), micros)}`;
    };
  }
  const fmt = isDate ? opts.dateFormat : opts.dateTimeFormat;
  const parse = compileStrptimeInto(fmt);
  const p = newParts();
  return (t) => {
    if (t === null) return null;
    const s = t.trim();
    if (s === '') return null;
    if (!parse(s, p)) return new Rejection(`'${t}' does not match the ${isDate ? 'date_format' : 'date_time_format'} '${fmt}' (${type})`);
    if (p.offsetMinutes !== 0) {
      // normalise to UTC through a Date (rare: only formats with %z)
      const d = new Date(utcMs(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - p.offsetMinutes * 60000);
      if (!inRange(d)) return new Rejection(`'${t}' is out of the range of ${type}`);
      p.year = d.getUTCFullYear();
      p.month = d.getUTCMonth() + 1;
      p.day = d.getUTCDate();
      p.hour = d.getUTCHours();
      p.minute = d.getUTCMinutes();
    }
    if (p.year < 1 || p.year > 9999) return new Rejection(`'${t}' is out of the range of ${type}`);
    const day = `${pad4(p.year)}-${pad2(p.month)}-${pad2(p.day)}`;
    return isDate ? day : `${day} ${isoTime(p.hour, p.minute, p.second, opts.skipSecondFraction ? 0 : p.micros)}`;
  };
}

/** The parts of a date and time read by a strptime format (unset parts: 1970-01-01 00:00:00). */
export interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Fraction of the second in microseconds (0–999999). */
  micros: number;
  /** `%z`: minutes east of UTC. */
  offsetMinutes: number;
}

/** The mutable parts a compiled format writes into. */
interface Parts extends DateTimeParts {
  pm: boolean;
  /** `%j`, 0 when absent. */
  yday: number;
}

type Setter = (p: Parts, v: string) => boolean;

function newParts(): Parts {
  return { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, micros: 0, offsetMinutes: 0, pm: false, yday: 0 };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];


/**
 * Compiles a strptime-style format (the documented `date_format`, `date_time_format`, `time_format`) into
 * a parser that returns the parts, or undefined when the text does not match or names an impossible
 * date or time. The whole text must match.
 *
 * Directives: `%Y` (4 digits) `%y` (2 digits: 69–99 → 19xx, 00–68 → 20xx) `%m` `%d` `%e` `%j` `%H`
 * `%I` with `%p` `%M` `%S` (an optional `.` or `,` fraction may follow) `%f` (1–9 fraction digits)
 * `%b` `%h` `%B` (English month names) `%a` `%A` (English weekday names, not checked) `%z` (`Z`,
 * `+hh`, `+hhmm`, `+hh:mm`) `%T` = `%H:%M:%S`, `%D` = `%m/%d/%y`, `%F` = `%Y-%m-%d`, `%R` = `%H:%M`,
 * `%%`; a blank matches any run of blanks (also none). Throws `Error` for any other directive.
 */
export function compileStrptime(format: string): (text: string) => DateTimeParts | undefined {
  const parse = compileStrptimeInto(format);
  return (text) => {
    const p = newParts();
    return parse(text, p) ? p : undefined;
  };
}

/** `compileStrptime` writing into a caller's parts object (reset on every call); false when the text does not match. */
function compileStrptimeInto(format: string): (text: string, p: Parts) => boolean {
  const expanded = format.replace(/%([TDFR])/g, (_m, c: string) => ({ T: '%H:%M:%S', D: '%m/%d/%y', F: '%Y-%m-%d', R: '%H:%M' })[c] as string);
  let re = '^';
  const setters: Setter[] = [];
  for (let i = 0; i < expanded.length; i++) {
    const ch = expanded.charAt(i);
    if (ch !== '%') {
      re += /\s/.test(ch) ? '\\s*' : ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      continue;
    }
    const d = expanded[++i];
    const num = (digits: string, set: (p: Parts, n: number) => boolean): void => {
      re += `(${digits})`;
      setters.push((p, v) => set(p, Number(v)));
    };
    switch (d) {
      case 'Y': num('\\d{4}', (p, n) => ((p.year = n), true)); break;
      case 'y': num('\\d{2}', (p, n) => ((p.year = n < 69 ? 2000 + n : 1900 + n), true)); break;
      case 'm': num('\\d{1,2}', (p, n) => ((p.month = n), n >= 1 && n <= 12)); break;
      case 'd':
      case 'e': num(' ?\\d{1,2}', (p, n) => ((p.day = n), n >= 1 && n <= 31)); break;
      case 'j': num('\\d{1,3}', (p, n) => ((p.yday = n), n >= 1 && n <= 366)); break;
      case 'H': num('\\d{1,2}', (p, n) => ((p.hour = n), n <= 23)); break;
      case 'I': num('\\d{1,2}', (p, n) => ((p.hour = n % 12), n >= 1 && n <= 12)); break;
      case 'M': num('\\d{1,2}', (p, n) => ((p.minute = n), n <= 59)); break;
      case 'S':
        re += '(\\d{1,2})(?:[.,](\\d{1,9}))?';
        setters.push((p, v) => ((p.second = Number(v)), p.second <= 59));
        setters.push((p, v) => ((p.micros = v === undefined ? 0 : fractionMicros(v)), true));
        break;
      case 'f':
        re += '(\\d{1,9})';
        setters.push((p, v) => ((p.micros = fractionMicros(v)), true));
        break;
      case 'p':
        re += '([AaPp][Mm])';
        setters.push((p, v) => ((p.pm = v.toLowerCase() === 'pm'), true));
        break;
      case 'b':
      case 'h':
      case 'B':
        re += `(${MONTHS.map((m) => (d === 'B' ? m : m.slice(0, 3))).join('|')})`;
        setters.push((p, v) => ((p.month = MONTHS.findIndex((m) => m.startsWith(v.toLowerCase())) + 1), true));
        break;
      case 'a':
      case 'A':
        re += `(?:${DAYS.map((x) => (d === 'A' ? x : x.slice(0, 3))).join('|')})`;
        break;
      case 'z':
        re += '(Z|[+-]\\d{2}(?::?\\d{2})?)';
        setters.push((p, v) => {
          if (v.toUpperCase() === 'Z') return (p.offsetMinutes = 0), true;
          const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(v) as RegExpExecArray;
          const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
          p.offsetMinutes = m[1] === '-' ? -minutes : minutes;
          return Number(m[2]) <= 23 && Number(m[3] ?? 0) <= 59;
        });
        break;
      case '%': re += '%'; break;
      case 'n':
      case 't': re += '\\s*'; break;
      default:
        throw new Error(`unknown strptime directive %${d ?? ''} in '${format}'`);
    }
  }
  const regex = new RegExp(`${re}$`, 'i');
  const hasHour12 = /%I/.test(expanded);
  return (text, p) => {
    const m = regex.exec(text);
    if (!m) return false;
    p.year = 1970;
    p.month = 1;
    p.day = 1;
    p.hour = 0;
    p.minute = 0;
    p.second = 0;
    p.micros = 0;
    p.offsetMinutes = 0;
    p.pm = false;
    p.yday = 0;
    for (let k = 0; k < setters.length; k++) {
      const v = m[k + 1];
      // only the optional fraction after %S can be absent; its setter reads undefined as no fraction
      if (!(setters[k] as Setter)(p, v === undefined ? (v as unknown as string) : v)) return false;
    }
    if (hasHour12 && p.pm) p.hour += 12;
    if (p.yday !== 0) {
      const d = new Date(utcMs(p.year, 0, p.yday, 0, 0, 0));
      if (d.getUTCFullYear() !== p.year) return false;
      p.month = d.getUTCMonth() + 1;
      p.day = d.getUTCDate();
    }
    return p.day <= daysInMonth(p.year, p.month);
  };
}

/** Epoch milliseconds of a UTC date and time (unlike `Date.UTC`, years 0–99 are not moved to 19xx). */
function utcMs(year: number, month0: number, day: number, h: number, m: number, s: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month0, day);
  d.setUTCHours(h, m, s, 0);
  return d.getTime();
}

/** Days in a month of the proleptic Gregorian calendar (month 1–12). */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** `'5'` → 500000, `'123456789'` → 123456 (microseconds; digits past the sixth are dropped). */
function fractionMicros(digits: string): number {
  return Number((digits + '000000').slice(0, 6));
}

/** `YYYY-MM-DD` of a UTC date. */
function isoDate(d: Date): string {
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

/** True when a date lies in the years 1–9999 (what the staged text and DuckDB's DATE read back). */
function inRange(d: Date): boolean {
  const y = d.getUTCFullYear();
  return y >= 1 && y <= 9999;
}

/** `HH:MM:SS` with `.ffffff` when there are microseconds. */
function isoTime(h: number, m: number, s: number, micros: number): string {
  const base = `${pad2(h)}:${pad2(m)}:${pad2(s)}`;
  return micros ? `${base}.${String(micros).padStart(6, '0')}` : base;
}

function pad4(n: number): string {
  return n >= 1000 ? String(n) : String(n).padStart(4, '0');
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
