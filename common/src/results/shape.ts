/**
 * The shape of a search answer: what each column is (a date, an attribute or a measure, and its data
 * type) and which chart fits it, as an analytics product chooses — a line over a date bucket, bars for
 * an attribute and a measure, grouped bars for two attributes, a single number for one measure.
 *
 * Pure (no `vscode`, no DOM): used by the extension host and bundled into the results webview.
 *
 * searchdata answers carry column names only (docs/service-interface.md §2.5), so the types come from the names the service
 * gives (`Month(date)`, `Total delay`, `Average delay`: docs/service-notes.md §1.2 and the emulator's compile.ts
 * naming), the data source's columns when known (`tsq/columns`), and last from the values themselves.
 */
import { isFamily, type CellValue, type Column, type ColumnDataType } from '../model';

export type { CellValue } from '../model';

/** What a column of an answer is. */
export type ColumnRole = 'date' | 'attribute' | 'measure';

/** One column of an answer, described for the grid (header, alignment, format) and the chart. */
export interface ResultColumn {
  /** The name searchdata gave (e.g. `Month(date)`, `Total delay`, `origin`). */
  name: string;
  /** Data type: a catalog type, or inferred; `UNKNOWN` when nothing tells. */
  dataType: ColumnDataType | 'UNKNOWN';
  role: ColumnRole;
  /**
   * For a date bucket or date part, its label as the service names it (`Month`, `Day of week`, …).
   * Date buckets (`Hour` … `Year`) hold epoch seconds; date parts hold ordinals (1 = Monday, …).
   */
  bucket?: string;
}

/** Date buckets whose values are epoch seconds (docs/service-interface.md §4.3 `.hourly` … `.yearly`). */
export const DATE_BUCKETS = ['Hour', 'Day', 'Week', 'Month', 'Quarter', 'Year'] as const;
/** Date parts whose values are ordinals (docs/service-interface.md §4.3 `.'day of week'` …). */
export const DATE_PARTS = ['Day of week', 'Day of month', 'Day of year', 'Week of year', 'Month of year', 'Quarter of year', 'Hour of day'] as const;
/** Aggregation prefixes of measure names (`Total delay`), longest first so `Total Count` wins over `Total`. */
const AGGREGATIONS: [prefix: string, type: ColumnDataType | undefined][] = [
  ['Standard Deviation', 'DOUBLE'],
  ['Unique Count', 'INT64'],
  ['Total Count', 'INT64'],
  ['Variance', 'DOUBLE'],
  ['Average', 'DOUBLE'],
  ['Count', 'INT64'],
  ['Total', undefined],
  ['Max', undefined],
  ['Min', undefined],
];

const isDateType = (t: string): boolean => isFamily(t, 'date');
const isNumericType = (t: string): boolean => isFamily(t, 'number');

/** The type the first non-null values of column `i` suggest (numbers → INT64 or DOUBLE, booleans → BOOL, else VARCHAR). */
function typeFromValues(rows: readonly (readonly CellValue[])[], i: number): ColumnDataType | 'UNKNOWN' {
  let seen = 0;
  let integral = true;
  let kind: 'number' | 'boolean' | 'string' | undefined;
  for (const row of rows) {
    const v = row[i];
    if (v === null || v === undefined) continue;
    const k = typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string';
    if (kind && kind !== k) return 'VARCHAR';
    kind = k;
    if (k === 'number' && !Number.isInteger(v)) integral = false;
    if (++seen >= 200) break;
  }
  if (!kind) return 'UNKNOWN';
  if (kind === 'number') return integral ? 'INT64' : 'DOUBLE';
  return kind === 'boolean' ? 'BOOL' : 'VARCHAR';
}

/**
 * Describes the columns of an answer.
 * @param names `columnNames` of the searchdata result, in order
 * @param rows some rows (the first page is enough) to infer types the names do not tell
 * @param catalog the data source's columns (from `tsq/columns`), when known
 * @returns one `ResultColumn` per name, in order
 */
export function describeColumns(names: readonly string[], rows: readonly (readonly CellValue[])[], catalog?: readonly Column[]): ResultColumn[] {
  const byName = new Map<string, Column>();
  for (const c of catalog ?? []) byName.set(c.name.toLowerCase(), c);
  return names.map((name, i): ResultColumn => {
    const bucket = /^(.+?)\((.+)\)$/.exec(name);
    if (bucket) {
      const label = bucket[1].trim();
      const dateBucket = DATE_BUCKETS.find((b) => b.toLowerCase() === label.toLowerCase());
      if (dateBucket) return { name, dataType: dateBucket === 'Hour' ? 'DATE_TIME' : 'DATE', role: 'date', bucket: dateBucket };
      const part = DATE_PARTS.find((b) => b.toLowerCase() === label.toLowerCase());
      if (part) return { name, dataType: 'INT64', role: 'attribute', bucket: part };
    }
    const exact = byName.get(name.toLowerCase());
    if (exact) {
      const role: ColumnRole = isDateType(exact.dataType) ? 'date' : exact.kind === 'MEASURE' ? 'measure' : 'attribute';
      return { name, dataType: exact.dataType, role };
    }
    for (const [prefix, type] of AGGREGATIONS) {
      if (name.length > prefix.length + 1 && name.toLowerCase().startsWith(prefix.toLowerCase() + ' ')) {
        const of = byName.get(name.slice(prefix.length + 1).toLowerCase());
        const dataType = type ?? (of && isNumericType(of.dataType) ? of.dataType : typeFromValues(rows, i));
        // Max/Min of a date stays a date
        if (!type && of && isDateType(of.dataType)) return { name, dataType: of.dataType, role: 'date' };
        return { name, dataType, role: 'measure' };
      }
    }
    const inferred = typeFromValues(rows, i);
    return { name, dataType: inferred, role: isNumericType(inferred) ? 'measure' : 'attribute' };
  });
}

/** Chart kinds the chart tab draws. */
export type ChartKind = 'line' | 'bar' | 'groupedBar' | 'number' | 'none';

/** The chart chosen for an answer: which columns go where, and which kinds the switch offers. */
export interface ChartSpec {
  kind: ChartKind;
  /** Index of the column on the x axis (line, bar, groupedBar). */
  x?: number;
  /** Index of the column that splits the series (groupedBar; a line with one attribute). */
  group?: number;
  /** Indexes of the measure columns drawn (the first only when `group` is set). */
  measures: number[];
  /** The kinds that fit this answer, `kind` first (for the chart-type switch). */
  alternatives: ChartKind[];
  /** Why `none`: a sentence for a person. */
  reason?: string;
}

/**
 * Chooses the chart for an answer's columns (see the file comment) and the kinds a person may switch to.
 * @param columns from `describeColumns`
 * @param rowCount rows of the answer (a single number needs exactly one row)
 * @param prefer a kind the person chose; used when it fits
 */
export function chooseChart(columns: readonly ResultColumn[], rowCount: number, prefer?: ChartKind): ChartSpec {
  const idx = (role: ColumnRole) => columns.flatMap((c, i) => (c.role === role ? [i] : []));
  const dates = idx('date');
  const attrs = idx('attribute');
  const measures = idx('measure');
  const dims = [...dates, ...attrs].sort((a, b) => a - b);
  let spec: ChartSpec;
  if (measures.length === 0) {
    spec = { kind: 'none', measures: [], alternatives: [], reason: 'The answer has no measure to chart.' };
  } else if (dims.length === 0) {
    spec = rowCount === 1
      ? { kind: 'number', measures, alternatives: ['number', 'bar'] }
      : { kind: 'bar', measures, alternatives: ['bar', 'line'] };
  } else if (dates.length >= 1 && attrs.length === 0) {
    spec = { kind: 'line', x: dates[0], measures, alternatives: ['line', 'bar'] };
  } else if (dates.length === 1 && attrs.length === 1) {
    spec = { kind: 'line', x: dates[0], group: attrs[0], measures: [measures[0]], alternatives: ['line', 'groupedBar', 'bar'] };
  } else if (dims.length === 1) {
    spec = { kind: 'bar', x: dims[0], measures, alternatives: ['bar', 'line'] };
  } else {
    spec = { kind: 'groupedBar', x: dims[0], group: dims[1], measures: [measures[0]], alternatives: ['groupedBar', 'bar', 'line'] };
  }
  if (prefer && prefer !== spec.kind && spec.alternatives.includes(prefer)) {
    const out: ChartSpec = { ...spec, kind: prefer };
    if (prefer === 'bar' && spec.kind === 'number') out.x = undefined;
    // plain bars or a line have no series split: one series per measure over x
    if ((prefer === 'bar' || prefer === 'line') && spec.kind === 'groupedBar') out.group = undefined;
    if (prefer === 'bar' && spec.kind === 'line' && spec.group !== undefined) out.group = undefined;
    return out;
  }
  return spec;
}

/** Chart data ready for a charting library: category labels and one series per measure or group. */
export interface ChartData {
  /** x-axis labels (formatted). */
  labels: string[];
  series: { label: string; data: (number | null)[] }[];
  /** True when categories or series were cut to the limits. */
  truncated: boolean;
}

/** Limits of `chartData`: categories on the x axis, series (groups). */
export const CHART_LIMITS = { categories: 1000, points: 20_000, series: 12 };

/**
 * Builds the chart data of `spec` from the rows: categories in order of first appearance (dates in
 * time order), a series per measure, or per value of the group column (the first `CHART_LIMITS.series`
 * groups by their total). Rows with several values for one category and series are summed.
 * @param label formats an x or group value for display (e.g. `formatCell`)
 */
export function chartData(spec: ChartSpec, columns: readonly ResultColumn[], rows: Iterable<readonly CellValue[]>, label: (value: CellValue, column: ResultColumn) => string): ChartData {
  if (spec.kind === 'none' || spec.measures.length === 0) return { labels: [], series: [], truncated: false };
  const num = (v: CellValue): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
  if (spec.x === undefined) {
    // no dimension: one bar per measure (first row)
    const row: readonly CellValue[] = rows[Symbol.iterator]().next().value ?? [];
    return { labels: spec.measures.map((m) => columns[m].name), series: [{ label: 'Value', data: spec.measures.map((m) => num(row[m] ?? null)) }], truncated: false };
  }
  const x = spec.x;
  const limit = spec.kind === 'line' ? CHART_LIMITS.points : CHART_LIMITS.categories;
  const keys: CellValue[] = [];
  const keyIndex = new Map<CellValue, number>();
  let truncated = false;
  const keyOf = (v: CellValue): number | undefined => {
    let k = keyIndex.get(v);
    if (k === undefined) {
      if (keys.length >= limit) {
        truncated = true;
        return undefined;
      }
      k = keys.length;
      keys.push(v);
      keyIndex.set(v, k);
    }
    return k;
  };
  let series: { label: string; data: (number | null)[] }[];
  if (spec.group === undefined) {
    series = spec.measures.map((m) => ({ label: columns[m].name, data: [] }));
    for (const row of rows) {
      const k = keyOf(row[x] ?? null);
      if (k === undefined) continue;
      spec.measures.forEach((m, s) => {
        const v = num(row[m] ?? null);
        if (v !== null) series[s].data[k] = (series[s].data[k] ?? 0) + v;
      });
    }
  } else {
    const g = spec.group;
    const m = spec.measures[0];
    const totals = new Map<CellValue, number>();
    for (const row of rows) totals.set(row[g] ?? null, (totals.get(row[g] ?? null) ?? 0) + Math.abs(num(row[m] ?? null) ?? 0));
    const groups = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([v]) => v);
    if (groups.length > CHART_LIMITS.series) truncated = true;
    const kept = groups.slice(0, CHART_LIMITS.series);
    const gIndex = new Map(kept.map((v, i) => [v, i]));
    series = kept.map((v) => ({ label: label(v, columns[g]), data: [] }));
    for (const row of rows) {
      const s = gIndex.get(row[g] ?? null);
      if (s === undefined) continue;
      const k = keyOf(row[x] ?? null);
      if (k === undefined) continue;
      const v = num(row[m] ?? null);
      if (v !== null) series[s].data[k] = (series[s].data[k] ?? 0) + v;
    }
  }
  let order = keys.map((_, i) => i);
  if (columns[x].role === 'date' || columns[x].bucket) order = order.sort((a, b) => compareCells(keys[a], keys[b]));
  const labels = order.map((i) => label(keys[i], columns[x]));
  return { labels, series: series.map((s) => ({ label: s.label, data: order.map((i) => s.data[i] ?? null) })), truncated };
}

/** How a chart reads beside its data: axis titles, legend, y baseline (`chartAxes`). */
export interface ChartAxes {
  /** The x axis's title: the name of the x column as the answer names it (e.g. `Month(date)`); undefined without one. */
  xTitle?: string;
  /** The y axis's title: the measure names as the answer names them (`Total distance`), joined by `, `. */
  yTitle: string;
  /** Whether a legend shows: more than one series, or series split by a colour-by (group) column. */
  legend: boolean;
  /** The legend's title: the colour-by column's name; undefined when the series are the measures. */
  legendTitle?: string;
  /** Whether the y axis starts at 0: always for bars; for a line, when no value drawn is negative. */
  fromZero: boolean;
}

/**
 * The titles, legend and baseline of the chart of `spec` over `data` (from `chartData`). The titles are
 * the answer's own column names (searchdata's `columnNames`, seed §4.2), so the chart says what the
 * grid's headers say. A line of values none of which is negative starts at 0, so that its height
 * compares with the measure's zero, as a bar does (bars always start at 0).
 */
export function chartAxes(spec: ChartSpec, columns: readonly ResultColumn[], data: ChartData): ChartAxes {
  const grouped = spec.group !== undefined;
  const nonNegative = data.series.every((s) => s.data.every((v) => v === null || v >= 0));
  return {
    xTitle: spec.x === undefined ? undefined : columns[spec.x]?.name,
    yTitle: spec.measures.map((m) => columns[m]?.name ?? '').join(', '),
    legend: grouped || data.series.length > 1,
    legendTitle: grouped ? columns[spec.group!]?.name : undefined,
    fromZero: spec.kind !== 'line' || nonNegative,
  };
}

/** Orders cells: nulls last, numbers numerically, otherwise by text. */
export function compareCells(a: CellValue, b: CellValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/**
 * The query text of a selection: its lines with `--` comments removed (outside quotes) and trimmed,
 * the way `tsq/queries` gives a query's text (docs/architecture.md, "The `.tsq` file").
 */
export function selectionQueryText(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => {
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      if (line[i] === "'") quoted = !quoted;
      else if (!quoted && line[i] === '-' && line[i + 1] === '-') return line.slice(0, i);
    }
    return line;
  });
  return lines.filter((l) => !/^\s*@datasource\b/i.test(l)).join('\n').replace(/;\s*$/, '').trim();
}
