/**
 * The fast path of a commit: when a load definition and its chunks fall in a subset where DuckDB's
 * `read_csv` splits records exactly as `records.ts` does, the cycle is ONE `INSERT … SELECT <strict
 * conversions> FROM read_csv(<chunks>)`, fields read as VARCHAR and converted in SQL as strictly as
 * `convert.ts` (a rejected value makes the statement fail: `error()` in a CASE). It loads every record
 * (no bad records, the slow path's result) or fails, and the caller rolls back and takes the slow path,
 * which also decides every value the fast path is unsure of (blanks, fractions, inf/nan, …).
 * The subset (`fastPathSql`, `chunksAreFastPathSafe`): two columns or more; not `flexible`, no
 * `trailing_field_separator`; ASCII separator and enclosing character; csv with an enclosing character or
 * delimited without escape; every chunk starting with the same unquoted header line when there is one;
 * date formats of `%Y %m %d %H %M %S %%` and literal text; no byte-order mark, no CR outside a CRLF.
 */
import { open } from 'node:fs/promises';
import type { TableInfo } from '../context';
import { quoteIdent, quoteLiteral } from '../engine';
import type { LoadDefinition } from './definition';

/** RE2 patterns of the fixed-width directives the fast path accepts (stricter than strptime's). */
const DIRECTIVE: Record<string, string> = {
  Y: '[0-9]{4}',
  m: '(?:0[1-9]|1[0-2])',
  d: '(?:0[1-9]|[12][0-9]|3[01])',
  H: '(?:[01][0-9]|2[0-3])',
  M: '[0-5][0-9]',
  S: '[0-5][0-9]',
  '%': '%',
};

/** A strict full-match RE2 pattern for a strptime format, or undefined when the format is outside the subset. */
export function strictPattern(format: string): string | undefined {
  let re = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format.charAt(i);
    if (ch === '%') {
      const p = DIRECTIVE[format[++i] ?? ''];
      if (p === undefined) return undefined;
      re += p;
    } else if (/[A-Za-z0-9 :\-/.,T_]/.test(ch)) {
      re += /[.\-/]/.test(ch) ? `\\${ch}` : ch;
    } else {
      return undefined;
    }
  }
  return re;
}

/** GLOB classes of the directives (a digit class per position; the ranges strptime itself enforces). */
const GLOB_DIRECTIVE: Record<string, string> = {
  Y: '[0-9][0-9][0-9][0-9]',
  m: '[01][0-9]',
  d: '[0-3][0-9]',
  H: '[0-2][0-9]',
  M: '[0-5][0-9]',
  S: '[0-5][0-9]',
};

/**
 * A GLOB pattern giving each of `format`'s characters a fixed place, or undefined when the format is
 * outside the subset of the cheap date check (each of `%Y %m %d %H %M %S` at most once; literals only
 * ` :-/.,T_`; no `%%`). Why it is exact: a text matching it has digits exactly where the directives
 * are, so strptime reads each field at its full width, and strptime itself rejects a month, day or hour
 * out of range (test/emulator/load-fastpath.test.ts compares it with the `strftime` round trip over
 * every month 00–19, day 00–39 and hour 00–29). A GLOB costs less than the round trip (README.md, Benchmarks).
 */
export function strictGlob(format: string): string | undefined {
  let glob = '';
  const seen = new Set<string>();
  for (let i = 0; i < format.length; i++) {
    const ch = format.charAt(i);
    if (ch === '%') {
      const d = format[++i] ?? '';
      const g = GLOB_DIRECTIVE[d];
      if (g === undefined || seen.has(d)) return undefined;
      seen.add(d);
      glob += g;
    } else if (/[ :\-/.,T_]/.test(ch)) {
      glob += ch;
    } else {
      return undefined;
    }
  }
  return glob;
}

/**
 * The SQL of a strict date (or date and time) read of VARCHAR `c` by strptime format `fmt`, as
 * `{ pre, ok }`: `pre` the TIMESTAMP read once per row (named `v` by the caller), `ok` the condition
 * that the text is exactly what `strftime(v, fmt)` writes back and its year is 1 or later (NULL or false
 * otherwise). The ISO formats `%Y-%m-%d %H:%M:%S` and `%Y-%m-%d` are read by a cast (DuckDB's ISO
 * parser, cheaper than strptime; it takes hour 24, which the check excludes); other formats in
 * `strictGlob`'s subset by `try_strptime` and a GLOB; the rest by the `strftime` round trip.
 * Returns undefined for a format outside `strictPattern`'s subset.
 */
export function strictDateSql(c: string, v: string, fmt: string): { pre: string; ok: string } | undefined {
  if (strictPattern(fmt) === undefined) return undefined;
  const glob = strictGlob(fmt);
  const year1 = `${v} >= TIMESTAMP '0001-01-01'`;
  if (glob === undefined) return { pre: `try_strptime(${c}, ${quoteLiteral(fmt)})`, ok: `strftime(${v}, ${quoteLiteral(fmt)}) = ${c} AND year(${v}) >= 1` };
  if (fmt === '%Y-%m-%d %H:%M:%S') return { pre: `TRY_CAST(${c} AS TIMESTAMP)`, ok: `${c} GLOB '${glob}' AND NOT ${c} GLOB '?????????? 24*' AND ${year1}` };
  if (fmt === '%Y-%m-%d') return { pre: `TRY_CAST(${c} AS TIMESTAMP)`, ok: `${c} GLOB '${glob}' AND ${year1}` };
  return { pre: `try_strptime(${c}, ${quoteLiteral(fmt)})`, ok: `${c} GLOB '${glob}' AND ${year1}` };
}

/** First and last epoch second of the years 1–9999 (what `convert.ts` accepts). */
const EPOCH_MIN = -62135596800;
const EPOCH_MAX = 253402300799;

/**
 * The SQL converting VARCHAR column `c` to `type` as strictly as `convert.ts`, or undefined outside the
 * subset. `pre` is computed once per row in an inner SELECT as `v` (DuckDB would evaluate a repeated
 * expression again); `expr` is the outer expression, which may use `v`.
 */
function conversion(c: string, v: string, type: string, def: LoadDefinition): { pre?: string; expr: string } | undefined {
  const f = def.format;
  const fail = `error('fast path: ' || ${c})`;
  const empty = `${c} IS NULL OR ${c} = ''`;
  switch (type) {
    case 'VARCHAR':
    case 'CHAR':
      return { expr: c };
    case 'INT32':
    case 'INT64':
      // only the canonical text of a number passes (no '+', leading zeros or blanks: the slow path decides those)
      return {
        pre: `TRY_CAST(${c} AS BIGINT)`,
        expr: `CASE WHEN ${empty} THEN NULL WHEN CAST(${v} AS VARCHAR) = ${c} THEN CAST(${v} AS ${type === 'INT32' ? 'INTEGER' : 'BIGINT'}) ELSE ${fail} END`,
      };
    case 'FLOAT':
    case 'DOUBLE':
      return {
        pre: `TRY_CAST(${c} AS ${type})`,
        expr: `CASE WHEN ${empty} THEN NULL WHEN regexp_full_match(${c}, '[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?') AND NOT isinf(${v}) THEN ${v} ELSE ${fail} END`,
      };
    case 'BOOL': {
      if (f.useBitValues && f.type === 'csv') {
        return { expr: `CASE WHEN ${empty} THEN NULL WHEN ${c} IN (chr(1), '0x1', '1') THEN true WHEN ${c} IN (chr(0), '0x0', '0') THEN false ELSE ${fail} END` };
      }
      const tf = f.trueFormat.toLowerCase();
      const ff = f.falseFormat.toLowerCase();
      if (tf !== tf.trim() || ff !== ff.trim() || /[^\x20-\x7e]/.test(tf + ff)) return undefined;
      return { expr: `CASE WHEN ${c} IS NULL THEN NULL WHEN lower(${c}) = ${quoteLiteral(tf)} THEN true WHEN lower(${c}) = ${quoteLiteral(ff)} THEN false WHEN ${c} = '' THEN NULL ELSE ${fail} END` };
    }
    case 'DATE':
    case 'DATE_TIME': {
      const isDate = type === 'DATE';
      if (f.convertedToEpoch) {
        const ts = `make_timestamp(${v} * 1000000)`;
        return {
          pre: `TRY_CAST(${c} AS BIGINT)`,
          expr: `CASE WHEN ${empty} THEN NULL WHEN CAST(${v} AS VARCHAR) = ${c} AND ${v} BETWEEN ${EPOCH_MIN} AND ${EPOCH_MAX} THEN ${isDate ? `CAST(${ts} AS DATE)` : ts} ELSE ${fail} END`,
        };
      }
      // the text must be exactly what strftime writes back: fixed widths, a real date, nothing more
      const read = strictDateSql(c, v, isDate ? f.dateFormat : f.dateTimeFormat);
      if (read === undefined) return undefined;
      return { pre: read.pre, expr: `CASE WHEN ${empty} THEN NULL WHEN ${read.ok} THEN ${isDate ? `CAST(${v} AS DATE)` : v} ELSE ${fail} END` };
    }
    case 'TIME': {
      if (strictPattern(f.timeFormat) === undefined || /%[Ymd]/.test(f.timeFormat)) return undefined;
      return {
        pre: `try_strptime(${c}, ${quoteLiteral(f.timeFormat)})`,
        expr: `CASE WHEN ${empty} THEN NULL WHEN strftime(${v}, ${quoteLiteral(f.timeFormat)}) = ${c} THEN CAST(${v} AS TIME) ELSE ${fail} END`,
      };
    }
    default:
      return undefined;
  }
}

/**
 * The fast path's INSERT for these chunks, or undefined when the load definition or the table is
 * outside the subset of the module comment (the chunks' content is checked by `chunksAreFastPathSafe`).
 */
export function fastPathSql(def: LoadDefinition, table: TableInfo, chunkPaths: string[]): string | undefined {
  const f = def.format;
  if (table.columns.length < 2 || chunkPaths.length === 0) return undefined; // one column: DuckDB reads a blank line as a null row
  if (f.flexible || f.trailingFieldSeparator) return undefined;
  // With a header row and several chunks, read_csv skips the first line of every chunk: right only when
  // every chunk starts with the first chunk's header line, which `chunksAreFastPathSafe` checks.
  const ascii = (ch: string) => ch.length === 1 && ch.charCodeAt(0) < 128 && ch !== '\r' && ch !== '\n';
  if (!ascii(f.fieldSeparator)) return undefined;
  if (f.type === 'csv' && !ascii(f.enclosingCharacter)) return undefined;
  if (f.type === 'delimited' && f.escapeCharacter !== '') return undefined;
  const inner: string[] = [];
  const outer: string[] = [];
  for (let i = 0; i < table.columns.length; i++) {
    const conv = conversion(`c${i}`, `v${i}`, (table.columns[i] as TableInfo['columns'][number]).dataType, def);
    if (conv === undefined) return undefined;
    inner.push(`c${i}`);
    if (conv.pre) inner.push(`${conv.pre} AS v${i}`);
    outer.push(conv.expr);
  }
  const cols = table.columns.map((_, i) => `${quoteLiteral(`c${i}`)}: 'VARCHAR'`).join(', ');
  const names = table.columns.map((c) => quoteIdent(c.name)).join(', ');
  const quote = f.type === 'csv' ? quoteLiteral(f.enclosingCharacter) : "''";
  const nullstr = f.type === 'csv' ? "''" : quoteLiteral(f.nullValue);
  return (
    `INSERT INTO ${table.sqlName} (${names}) SELECT ${outer.join(', ')} FROM (SELECT ${inner.join(', ')} FROM read_csv([${chunkPaths.map(quoteLiteral).join(', ')}], columns = {${cols}}, ` +
    `header = ${f.hasHeaderRow}, delim = ${quoteLiteral(f.fieldSeparator)}, quote = ${quote}, escape = ${quote}, nullstr = ${nullstr}, ` +
    `auto_detect = false, allow_quoted_nulls = false, strict_mode = true))`
  );
}

/**
 * True when no chunk starts with a byte-order mark (or, with a header row, with a line break), no chunk
 * has a carriage return that is not part of a CRLF line end (DuckDB would end a record there,
 * `records.ts` would not), and, with a header row and several chunks, every chunk starts with the first
 * chunk's first line (its line end included), which holds no quote character (so that it is one record
 * for `records.ts` too). Reads the chunks with `Buffer.indexOf` only; throws for I/O errors.
 */
export async function chunksAreFastPathSafe(chunkPaths: string[], hasHeaderRow: boolean): Promise<boolean> {
  const buf = Buffer.allocUnsafe(1 << 20);
  if (hasHeaderRow && chunkPaths.length > 1 && !(await sameHeaderLine(chunkPaths, buf))) return false;
  for (const p of chunkPaths) {
    const fh = await open(p, 'r');
    try {
      let pos = 0;
      let carry = false; // the previous block ended with CR
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        if (pos === 0 && bytesRead >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return false;
        if (pos === 0 && hasHeaderRow && (buf[0] === 10 || buf[0] === 13)) return false;
        if (carry && buf[0] !== 10) return false;
        for (let i = buf.indexOf(13, 0); i >= 0 && i < bytesRead; i = buf.indexOf(13, i + 1)) {
          if (i + 1 < bytesRead) {
            if (buf[i + 1] !== 10) return false;
          }
        }
        carry = buf[bytesRead - 1] === 13;
        pos += bytesRead;
      }
      if (carry) return false;
    } finally {
      await fh.close();
    }
  }
  return true;
}

/** Most bytes of a header line the fast path compares (a longer one sends the load to the slow path). */
const MAX_HEADER_LINE = 64 * 1024;

/** True when every chunk starts with the first chunk's first line, `\n` included, which has no `"`, `'` or `` ` ``. */
async function sameHeaderLine(chunkPaths: string[], buf: Buffer): Promise<boolean> {
  const head = async (p: string): Promise<Buffer> => {
    const fh = await open(p, 'r');
    try {
      const { bytesRead } = await fh.read(buf, 0, MAX_HEADER_LINE, 0);
      return Buffer.from(buf.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  };
  const first = await head(chunkPaths[0]!);
  const end = first.indexOf(10);
  if (end < 0) return false;
  const line = first.subarray(0, end + 1);
  if (line.includes(34) || line.includes(39) || line.includes(96)) return false;
  for (let k = 1; k < chunkPaths.length; k++) {
    const h = await head(chunkPaths[k]!);
    if (h.length < line.length || !h.subarray(0, line.length).equals(line)) return false;
  }
  return true;
}
