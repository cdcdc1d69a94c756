/**
 * Checks of single CSV field values against a target column type under a load definition's `format`
 * (docs/service-interface.md §2.2 `format.date_time`, `format.boolean`), for the preview of a load: which values the service
 * would refuse as bad records. It mirrors the service's rules as the emulator applies them
 * (integers within the type's range, decimal numbers, booleans by `true_format`/`false_format` or bit
 * values, dates and times by strptime formats or epoch seconds); it never converts anything.
 *
 * Pure: no `vscode`, no I/O.
 */
import type { ColumnDataType } from '../model';
import type { LoadDefinition } from '../api';

/** The `format` of a load definition with every member present (the defaults of docs/service-interface.md §2.2 filled in). */
export type FullFormat = Required<Omit<NonNullable<LoadDefinition['format']>, 'date_time' | 'boolean' | 'type'>> & {
  type: 'csv' | 'delimited';
  date_time: Required<NonNullable<NonNullable<LoadDefinition['format']>['date_time']>>;
  boolean: Required<NonNullable<NonNullable<LoadDefinition['format']>['boolean']>>;
};

/** The docs/service-interface.md §2.2 defaults of `format`. */
export function defaultFormat(): FullFormat {
  return {
    type: 'csv',
    field_separator: ',',
    trailing_field_separator: false,
    enclosing_character: '"',
    escape_character: '',
    null_value: '(null)',
    has_header_row: false,
    flexible: false,
    date_time: { converted_to_epoch: false, date_time_format: '%Y%m%d %H:%M:%S', date_format: '%Y%m%d', time_format: '%H:%M:%S', skip_second_fraction: false },
    boolean: { use_bit_values: false, true_format: 'T', false_format: 'F' },
  };
}

/** `format` merged over the defaults of docs/service-interface.md §2.2. */
export function fullFormat(format: LoadDefinition['format'] | undefined): FullFormat {
  const d = defaultFormat();
  const f = format ?? {};
  return {
    ...d,
    ...f,
    type: (f.type ?? 'csv').toLowerCase() === 'delimited' ? 'delimited' : 'csv',
    date_time: { ...d.date_time, ...(f.date_time ?? {}) },
    boolean: { ...d.boolean, ...(f.boolean ?? {}) },
  } as FullFormat;
}

const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DAYS = 'mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?';

/** The strptime shorthands and what each stands for (`%T` is `%H:%M:%S`). */
const STRPTIME_SHORTHANDS: Readonly<Record<string, string>> = { T: '%H:%M:%S', D: '%m/%d/%y', F: '%Y-%m-%d', R: '%H:%M' };

/** `format` with its shorthands `%T %D %F %R` written out (`STRPTIME_SHORTHANDS`); the other directives kept. */
export function expandStrptimeShorthands(format: string): string {
  return format.replace(/%([TDFR])/g, (m, c: string) => STRPTIME_SHORTHANDS[c] ?? m);
}

/**
 * A regular expression for a strptime format (the directives of docs/service-interface.md §2.2's formats: `%Y %y %m %d %e %j
 * %H %I %M %S %f %p %b %h %B %a %A %z %T %D %F %R %%`; `%S` may be followed by a `.`/`,` fraction).
 * Month and day ranges are checked by the pattern; impossible dates such as 31 February are not.
 * @throws Error naming a directive this module does not know.
 */
export function strptimeRegExp(format: string): RegExp {
  const expanded = expandStrptimeShorthands(format);
  let re = '';
  for (let i = 0; i < expanded.length; i++) {
    const ch = expanded[i];
    if (ch !== '%') {
      re += /\s/.test(ch) ? '\\s+' : ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      continue;
    }
    const d = expanded[++i];
    switch (d) {
      case 'Y': re += '\\d{4}'; break;
      case 'y': re += '\\d{2}'; break;
      case 'm': re += '(?:0?[1-9]|1[0-2])'; break;
      case 'd':
      case 'e': re += ' ?(?:0?[1-9]|[12]\\d|3[01])'; break;
      case 'j': re += '\\d{1,3}'; break;
      case 'H': re += '(?:[01]?\\d|2[0-3])'; break;
      case 'I': re += '(?:0?[1-9]|1[0-2])'; break;
      case 'M': re += '[0-5]?\\d'; break;
      case 'S': re += '(?:[0-5]?\\d|60)(?:[.,]\\d{1,9})?'; break;
      case 'f': re += '\\d{1,9}'; break;
      case 'p': re += '(?:am|pm)'; break;
      case 'b':
      case 'h':
      case 'B': re += `(?:${MONTHS})`; break;
      case 'a':
      case 'A': re += `(?:${DAYS})`; break;
      case 'z': re += '(?:z|[+-]\\d{2}(?::?\\d{2})?)'; break;
      case '%': re += '%'; break;
      default:
        throw new Error(`the date/time format "${format}" has the directive %${d ?? ''}, which is not supported`);
    }
  }
  return new RegExp(`^${re}$`, 'i');
}

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOAT_RE = /^[+-]?(?:inf|infinity|nan)$/i;

/** A checker of one column: returns undefined when the value fits, else why not. `null` is a null field (always fits). */
export type ValueCheck = (value: string | null) => string | undefined;

/**
 * Builds the check of one column type under `format`.
 * @throws Error when a strptime format of `format` has an unknown directive.
 */
export function valueCheck(type: ColumnDataType, format: FullFormat): ValueCheck {
  const blankIsNull = (v: string | null): boolean => v === null || v.trim() === '';
  switch (type) {
    case 'VARCHAR':
    case 'CHAR':
      return () => undefined;
    case 'INT32':
    case 'INT64':
      return (v) => {
        if (blankIsNull(v)) return undefined;
        const t = v!.trim();
        if (!INT_RE.test(t)) return `"${short(t)}" is not an integer (${type})`;
        const n = BigInt(t);
        const [min, max] = type === 'INT32' ? [-(2n ** 31n), 2n ** 31n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
        return n < min || n > max ? `${t} is out of the range of ${type}` : undefined;
      };
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => (blankIsNull(v) || FLOAT_RE.test(v!.trim()) || SPECIAL_FLOAT_RE.test(v!.trim()) ? undefined : `"${short(v!)}" is not a number (${type})`);
    case 'BOOL': {
      const b = format.boolean;
      return (v) => {
        if (blankIsNull(v)) return undefined;
        const t = v!.trim().toLowerCase();
        if (b.use_bit_values && format.type === 'csv') return ['0x0', '0x1', '0', '1'].includes(t) ? undefined : `"${short(v!)}" is not a bit value (0x0 or 0x1)`;
        return t === b.true_format.toLowerCase() || t === b.false_format.toLowerCase() ? undefined : `"${short(v!)}" is neither "${b.true_format}" nor "${b.false_format}" (BOOL)`;
      };
    }
    case 'DATE':
    case 'DATE_TIME': {
      const dt = format.date_time;
      const fmt = type === 'DATE' ? dt.date_format : dt.date_time_format;
      if (dt.converted_to_epoch && format.type === 'csv') return (v) => (blankIsNull(v) || INT_RE.test(v!.trim()) ? undefined : `"${short(v!)}" is not epoch seconds (converted_to_epoch is on)`);
      const re = strptimeRegExp(fmt);
      return (v) => (blankIsNull(v) || re.test(v!.trim()) ? undefined : `"${short(v!)}" does not match ${fmt} (${type})`);
    }
    case 'TIME': {
      const fmt = format.date_time.time_format;
      const re = strptimeRegExp(fmt);
      return (v) => (blankIsNull(v) || re.test(v!.trim()) ? undefined : `"${short(v!)}" does not match ${fmt} (TIME)`);
    }
    default:
      return () => undefined;
  }
}

function short(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
