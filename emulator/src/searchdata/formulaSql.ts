/**
 * A formula (common/src/formula/) as DuckDB SQL, for the emulator's searchdata: a row-level formula is
 * an expression over the data source's columns (aggregated by the search like any column), an aggregate
 * one is computed per group of the search (compile.ts), the cumulative and moving functions and `rank`
 * as windows over those groups. Each function's SQL is declared once in `FUNCTION_SQL`, by the
 * catalogue's names. Passthrough `sql_*_op` functions run their SQL text on the warehouse: the emulator
 * refuses them (a stranger's TML must not run SQL of its choosing). `group_aggregate` and the group_*
 * functions are handed to the caller as a `GroupCall` (an aggregate at a grain of its own: compile.ts joins
 * it); `similar_to` and `similarity` (a relevance score the reference does not define) are refused.
 */
import { FORMULA_FUNCTION_BY_NAME } from '../../../common/src/formula/functions';
import { parseFormula, type FormulaNode } from '../../../common/src/formula/parser';

/** The SQL of a column a formula names, or a QueryError thrown for an unknown one. */
export type FormulaColumnSql = (name: string, table: string | undefined) => string;

/** Throws the error of a formula the emulator cannot run (compile.ts's QueryError, a 400). */
export type FormulaFail = (message: string) => never;

/** One item of a group_aggregate list: its SQL, and the column it names when it is one (`{ship mode}`). */
export interface GroupListItem {
  sql: string;
  column?: { name: string; table?: string };
}

/**
 * A groupings or filters list of group_aggregate (formulas-aggregation-flexible.adoc): `{…}` (`add`), or
 * `query_groups()` / `query_filters()` (`query`: the search's own) with `+ {…}` added and `- {…}` taken away.
 */
export interface GroupList {
  query: boolean;
  add: GroupListItem[];
  remove: GroupListItem[];
}

/**
 * A group function's call: `aggregate` the SQL of its aggregation over the data source's rows, computed at
 * the grain of `groupings` over the rows `filters` keep, then re-aggregated to the search's groups by
 * `reaggregate` (a DuckDB list_aggregate name: sum, max, min or avg) where that grain is finer.
 */
export interface GroupCall {
  aggregate: string;
  groupings: GroupList;
  filters: GroupList;
  reaggregate: 'sum' | 'max' | 'min' | 'avg';
}

/** The SQL of a group function's value per group of the search, from its call (compile.ts). */
export type FormulaGroupSql = (call: GroupCall) => string;

/** What the SQL of a formula's nodes is made with: its columns', the failure, and the group functions'. */
interface SqlContext {
  column: FormulaColumnSql;
  fail: FormulaFail;
  group?: FormulaGroupSql;
  /** Inside a group function's aggregation: another group function there is refused (formulas-aggregation-group.adoc). */
  inGroup?: boolean;
}

/** A SQL text literal (quotes doubled; DuckDB reads no backslash escapes in standard strings). */
function text(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

const deg = (x: string): string => `degrees(${x})`;
const rad = (x: string): string => `radians(${x})`;
const ts = (x: string): string => `CAST(${x} AS TIMESTAMP)`;
const day = (x: string): string => `CAST(${x} AS DATE)`;
const ifAgg = (agg: string) => (a: string[]): string => `${agg}(CASE WHEN ${a[0]} THEN ${a[1]} END)`;
const diff = (unit: string) => (a: string[]): string => `date_diff('${unit}', ${ts(a[1]!)}, ${ts(a[0]!)})`;
const add = (unit: string) => (a: string[]): string => `(${a[0]} + to_${unit}(CAST(${a[1]} AS INTEGER)))`;
const startOf = (unit: string) => (a: string[]): string => day(`date_trunc('${unit}', ${ts(a[0]!)})`);
const order = (a: string | undefined): string => (a && /desc/i.test(a) ? 'DESC' : 'ASC');
/**
 * The frame of a moving_* window: current − num1 … current + num2, both ends included (aggregate.adoc; a
 * negative num2 ends the window before the current group). Both must be whole numbers written in the
 * formula; anything else is 0.
 */
const movingFrame = (raw: FormulaNode[]): string => {
  const n = (node: FormulaNode | undefined): number => (node?.kind === 'number' && Number.isInteger(node.value) ? node.value : 0);
  const bound = (k: number): string => (k === 0 ? 'CURRENT ROW' : k > 0 ? `${k} FOLLOWING` : `${-k} PRECEDING`);
  const from = -n(raw[1]);
  const to = n(raw[2]);
  return `ROWS BETWEEN ${bound(Math.min(from, to))} AND ${bound(Math.max(from, to))}`;
};
/** The week of `x` in its `period` (Monday-start weeks, the period's first days week 1: docs/service-notes.md). */
const weekOf = (period: string) => (a: string[]): string => {
  const x = ts(a[0]!);
  return `((date_diff('day', date_trunc('${period}', ${x}), ${x}) + isodow(date_trunc('${period}', ${x})) - 1) // 7 + 1)`;
};

/** The letters of Soundex and their digits (0 a vowel, 9 `h`/`w`, which separate no two equal digits). */
const SOUNDEX_FROM = 'abcdefghijklmnopqrstuvwxyz';
const SOUNDEX_TO = '01230129022455012623019202';
/**
 * American Soundex of a text (its letters only, case-insensitive): the first letter, then the digits of the
 * others with runs of one digit written once (`h`, `w` inside a run), vowels dropped, padded with 0 to four;
 * '' for a text with no letter.
 */
const soundex = (x: string): string => {
  const s = `regexp_replace(lower(CAST(${x} AS VARCHAR)), '[^a-z]', '', 'g')`;
  // the first letter's digit (h, w: none) starts the runs; the others' digits without h, w
  let d = `(translate(left(${s}, 1), 'hw', '00') || replace(translate(substr(${s}, 2), '${SOUNDEX_FROM}', '${SOUNDEX_TO}'), '9', ''))`;
  d = `translate(${d}, '${SOUNDEX_FROM}', '${SOUNDEX_TO}')`;
  for (let k = 0; k <= 6; k++) d = `regexp_replace(${d}, '${k}+', '${k}', 'g')`;
  return `(CASE WHEN ${s} = '' THEN '' ELSE upper(left(${s}, 1)) || left(rpad(replace(substr(${d}, 2), '0', ''), 3, '0'), 3) END)`;
};

/**
 * The DuckDB SQL of each catalogue function and operator the emulator runs, from its arguments' SQL
 * (weeks start on Monday, ISO numbering: docs/service-notes.md "Formulas in the emulator").
 */
const FUNCTION_SQL: Record<string, (a: string[], raw: FormulaNode[]) => string> = {
  // operators
  and: (a) => `(${a[0]} AND ${a[1]})`, or: (a) => `(${a[0]} OR ${a[1]})`, not: (a) => `(NOT ${a[0]})`,
  if: (a) => `(CASE WHEN ${a[0]} THEN ${a[1]} ELSE ${a[2]} END)`, ifnull: (a) => `coalesce(${a[0]}, ${a[1]})`, isnull: (a) => `(${a[0]} IS NULL)`,
  '+': (a) => `(${a[0]} + ${a[1]})`, '-': (a) => `(${a[0]} - ${a[1]})`, '*': (a) => `(${a[0]} * ${a[1]})`,
  '/': (a) => `(CAST(${a[0]} AS DOUBLE) / NULLIF(${a[1]}, 0))`, '^': (a) => `pow(${a[0]}, ${a[1]})`,
  '=': (a) => `(${a[0]} = ${a[1]})`, '!=': (a) => `(${a[0]} <> ${a[1]})`, '<': (a) => `(${a[0]} < ${a[1]})`, '<=': (a) => `(${a[0]} <= ${a[1]})`,
  '>': (a) => `(${a[0]} > ${a[1]})`, '>=': (a) => `(${a[0]} >= ${a[1]})`, greatest: (a) => `greatest(${a.join(', ')})`, least: (a) => `least(${a.join(', ')})`,
  // aggregates (sample deviation and variance, as the search's `standard deviation`: docs/service-notes.md)
  sum: (a) => `sum(${a[0]})`, average: (a) => `avg(${a[0]})`, count: (a) => `count(${a[0]})`, 'unique count': (a) => `count(DISTINCT ${a[0]})`,
  max: (a) => `max(${a[0]})`, min: (a) => `min(${a[0]})`, median: (a) => `quantile_disc(${a[0]}, 0.5)`, stddev: (a) => `stddev_samp(${a[0]})`, variance: (a) => `var_samp(${a[0]})`,
  sum_if: ifAgg('sum'), average_if: ifAgg('avg'), count_if: ifAgg('count'), max_if: ifAgg('max'), min_if: ifAgg('min'), stddev_if: ifAgg('stddev_samp'), variance_if: ifAgg('var_samp'),
  unique_count_if: (a) => `count(DISTINCT CASE WHEN ${a[0]} THEN ${a[1]} END)`,
  percentile: (a) => `quantile_disc(${a[0]}, ${order(a[2]) === 'DESC' ? `1 - ${a[1]} / 100.0` : `${a[1]} / 100.0`})`,
  // windows over the search's groups: the measure aggregated per group, then accumulated in the order of the attributes
  cumulative_sum: (a) => `sum(sum(${a[0]})) OVER (ORDER BY ${a.slice(1).join(', ')} ROWS UNBOUNDED PRECEDING)`,
  cumulative_max: (a) => `max(max(${a[0]})) OVER (ORDER BY ${a.slice(1).join(', ')} ROWS UNBOUNDED PRECEDING)`,
  cumulative_min: (a) => `min(min(${a[0]})) OVER (ORDER BY ${a.slice(1).join(', ')} ROWS UNBOUNDED PRECEDING)`,
  cumulative_average: (a) => `(sum(sum(${a[0]})) OVER (ORDER BY ${a.slice(1).join(', ')} ROWS UNBOUNDED PRECEDING) / sum(count(${a[0]})) OVER (ORDER BY ${a.slice(1).join(', ')} ROWS UNBOUNDED PRECEDING))`,
  moving_sum: (a, raw) => `sum(sum(${a[0]})) OVER (ORDER BY ${a.slice(3).join(', ')} ${movingFrame(raw)})`,
  moving_max: (a, raw) => `max(max(${a[0]})) OVER (ORDER BY ${a.slice(3).join(', ')} ${movingFrame(raw)})`,
  moving_min: (a, raw) => `min(min(${a[0]})) OVER (ORDER BY ${a.slice(3).join(', ')} ${movingFrame(raw)})`,
  moving_average: (a, raw) => `avg(avg(${a[0]})) OVER (ORDER BY ${a.slice(3).join(', ')} ${movingFrame(raw)})`,
  rank: (a) => `rank() OVER (ORDER BY ${a[0]} ${order(a[1])})`,
  rank_percentile: (a) => `(percent_rank() OVER (ORDER BY ${a[0]} ${order(a[1])}) * 100)`,
  // conversion
  to_bool: (a) => `CAST(${a[0]} AS BOOLEAN)`, to_double: (a) => `TRY_CAST(${a[0]} AS DOUBLE)`, to_integer: (a) => `CAST(trunc(TRY_CAST(${a[0]} AS DOUBLE)) AS BIGINT)`,
  to_string: (a) => (a[1] ? `strftime(${ts(a[0]!)}, ${a[1]})` : `CAST(${a[0]} AS VARCHAR)`), to_date: (a) => day(`strptime(CAST(${a[0]} AS VARCHAR), ${a[1]})`),
  // date
  add_days: add('days'), add_weeks: add('weeks'), add_months: add('months'), add_years: add('years'), add_minutes: add('minutes'), add_seconds: add('seconds'),
  date: (a) => day(a[0]!), time: (a) => `CAST(${ts(a[0]!)} AS TIME)`, now: () => 'CAST(current_timestamp AS TIMESTAMP)', today: () => 'current_date',
  day: (a) => `dayofmonth(${ts(a[0]!)})`, day_number_of_week: (a) => `isodow(${ts(a[0]!)})`, day_number_of_year: (a) => `dayofyear(${ts(a[0]!)})`,
  day_number_of_quarter: (a) => `(date_diff('day', date_trunc('quarter', ${ts(a[0]!)}), ${ts(a[0]!)}) + 1)`,
  day_of_week: (a) => `dayname(${ts(a[0]!)})`, month: (a) => `monthname(${ts(a[0]!)})`, month_number: (a) => `month(${ts(a[0]!)})`,
  month_number_of_quarter: (a) => `((month(${ts(a[0]!)}) - 1) % 3 + 1)`, quarter_number: (a) => `quarter(${ts(a[0]!)})`,
  year: (a) => `year(${ts(a[0]!)})`, year_name: (a) => `CAST(year(${ts(a[0]!)}) AS VARCHAR)`, hour_of_day: (a) => `hour(${ts(a[0]!)})`,
  is_weekend: (a) => `(isodow(${ts(a[0]!)}) IN (6, 7))`,
  week_number_of_year: weekOf('year'), week_number_of_month: weekOf('month'), week_number_of_quarter: weekOf('quarter'),
  start_of_week: startOf('week'), start_of_month: startOf('month'), start_of_quarter: startOf('quarter'), start_of_year: startOf('year'),
  start_of_hour: (a) => `date_trunc('hour', ${ts(a[0]!)})`, start_of_min: (a) => `date_trunc('minute', ${ts(a[0]!)})`,
  diff_days: (a) => `date_diff('day', ${day(a[1]!)}, ${day(a[0]!)})`, diff_hours: diff('hour'), diff_minutes: diff('minute'),
  diff_weeks: (a) => `date_diff('week', date_trunc('week', ${ts(a[1]!)}), date_trunc('week', ${ts(a[0]!)}))`,
  diff_months: diff('month'), diff_quarters: diff('quarter'), diff_years: diff('year'),
  diff_time: (a) => `CAST(epoch(${ts(a[0]!)}) - epoch(${ts(a[1]!)}) AS BIGINT)`,
  // number (angles in degrees, as the reference gives them)
  abs: (a) => `abs(${a[0]})`, acos: (a) => deg(`acos(${a[0]})`), asin: (a) => deg(`asin(${a[0]})`), atan: (a) => deg(`atan(${a[0]})`), atan2: (a) => deg(`atan2(${a[0]}, ${a[1]})`),
  cbrt: (a) => `cbrt(${a[0]})`, ceil: (a) => `CAST(ceil(${a[0]}) AS BIGINT)`, floor: (a) => `CAST(floor(${a[0]}) AS BIGINT)`,
  cos: (a) => `cos(${rad(a[0]!)})`, sin: (a) => `sin(${rad(a[0]!)})`, tan: (a) => `tan(${rad(a[0]!)})`,
  cube: (a) => `pow(${a[0]}, 3)`, sq: (a) => `pow(${a[0]}, 2)`, sqrt: (a) => `sqrt(${a[0]})`, exp: (a) => `exp(${a[0]})`, exp2: (a) => `pow(2, ${a[0]})`,
  ln: (a) => `ln(${a[0]})`, log10: (a) => `log10(${a[0]})`, log2: (a) => `log2(${a[0]})`, mod: (a) => `(${a[0]} % ${a[1]})`, pow: (a) => `pow(${a[0]}, ${a[1]})`,
  random: () => 'random()', round: (a) => (a[1] ? `(round(${a[0]} / ${a[1]}) * ${a[1]})` : `round(${a[0]})`),
  safe_divide: (a) => `(CASE WHEN ${a[1]} = 0 THEN 0 ELSE CAST(${a[0]} AS DOUBLE) / ${a[1]} END)`, sign: (a) => `CAST(sign(${a[0]}) AS BIGINT)`,
  spherical_distance: (a) => `(2 * 6371.0 * asin(sqrt(pow(sin(radians(${a[2]} - ${a[0]}) / 2), 2) + cos(radians(${a[0]})) * cos(radians(${a[2]})) * pow(sin(radians(${a[3]} - ${a[1]}) / 2), 2))))`,
  // text (positions from 0, as the reference counts them)
  concat: (a) => `concat(${a.join(', ')})`, contains: (a) => `contains(CAST(${a[0]} AS VARCHAR), ${a[1]})`,
  edit_distance: (a) => `levenshtein(${a[0]}, ${a[1]})`, edit_distance_with_cap: (a) => `least(levenshtein(${a[0]}, ${a[1]}), ${a[2]} + 1)`,
  left: (a) => `left(${a[0]}, ${a[1]})`, right: (a) => `right(${a[0]}, ${a[1]})`, strlen: (a) => `length(${a[0]})`,
  strpos: (a) => `(strpos(${a[0]}, ${a[1]}) - 1)`, substr: (a) => `substr(${a[0]}, ${a[1]} + 1, ${a[2]})`,
  // alike in sound: one Soundex code; in spelling: at most one edit (a swap of two letters is one) per five letters of the longer, at least one
  sounds_like: (a) => `(${soundex(a[0]!)} = ${soundex(a[1]!)})`,
  spells_like: (a) => `(damerau_levenshtein(lower(${a[0]}), lower(${a[1]})) <= greatest(1, greatest(length(${a[0]}), length(${a[1]})) // 5))`,
};

/** The aggregation of each group_* function (group_sum is group_aggregate (sum (m), {attributes}, query_filters ())). */
const GROUP_AGGREGATION: Record<string, string> = {
  group_sum: 'sum', group_count: 'count', group_unique_count: 'unique count', group_max: 'max', group_min: 'min',
  group_average: 'average', group_stddev: 'stddev', group_variance: 'variance',
};
/** How an aggregation's values at a finer grain than the search's are re-aggregated to its groups (docs/service-notes.md §3.6). */
function reaggregation(name: string): GroupCall['reaggregate'] {
  if (/^(sum|count|unique count|unique_count)(_if)?$/.test(name)) return 'sum';
  if (/^(max|min)(_if)?$/.test(name)) return name.slice(0, 3) as 'max' | 'min';
  return 'avg';
}

/** The catalogue's functions the emulator computes (the others are refused with a QueryError naming them). */
export const EMULATED_FUNCTIONS: ReadonlySet<string> = new Set([...Object.keys(FUNCTION_SQL), ...Object.keys(GROUP_AGGREGATION), 'group_aggregate', 'query_groups', 'query_filters', 'in']);

/** The SQL of a formula's node in its context (`ctx.column`: a column's SQL). */
function nodeSql(n: FormulaNode, ctx: SqlContext): string {
  const sub = (x: FormulaNode): string => nodeSql(x, ctx);
  switch (n.kind) {
    case 'number': return Number.isFinite(n.value) ? String(n.value) : 'NULL';
    case 'string': return text(n.value);
    case 'bool': return n.value ? 'TRUE' : 'FALSE';
    case 'null': case 'missing': return 'NULL';
    case 'date': return n.withTime ? `TIMESTAMP '${n.value}'` : `DATE '${n.value}'`;
    case 'column': return ctx.column(n.name, n.table);
    case 'list': return n.items.map(sub).join(', ');
    case 'in': return `(${sub(n.value)} ${n.negated ? 'NOT IN' : 'IN'} (${sub(n.list)}))`;
    case 'unary': return n.op === 'not' ? `(NOT ${sub(n.operand)})` : `(- ${sub(n.operand)})`;
    case 'binary': return FUNCTION_SQL[n.op]!([sub(n.left), sub(n.right)], [n.left, n.right]);
    case 'if': return FUNCTION_SQL.if!([n.condition, n.then, n.else].map(sub), [n.condition, n.then, n.else]);
    case 'call': {
      const f = FORMULA_FUNCTION_BY_NAME.get(n.name.toLowerCase());
      if (!f) ctx.fail(`Unknown formula function ${n.name}`);
      if (f.category === 'passthrough') ctx.fail(`The formula function ${f.name} runs SQL on the data warehouse: the emulator does not run it`);
      if (f.aggregation === 'group') return groupSql(f.name, n.args, ctx);
      if (f.result === 'list') ctx.fail(`${f.name} () is a list of group_aggregate's groupings or filters: it stands only there`);
      const sql = FUNCTION_SQL[f.name];
      if (!sql) ctx.fail(`The formula function ${f.name} is not run by the emulator`);
      // a calendar argument (`fiscal`, a custom calendar's name) is not a column: the emulator computes the calendar year's
      const args = n.args.filter((a, i) => !(f.params[i]?.types.includes('calendar') && ((a.kind === 'column' && !a.bracketed) || a.kind === 'string')));
      return sql(args.map(sub), args);
    }
  }
}

/**
 * A group function as its `GroupCall`, made SQL by `ctx.group`: group_aggregate (aggregation, groupings,
 * filters), or a group_* (measure, attributes…) as group_aggregate of its aggregation by the attributes
 * under the search's filters. Fails without `ctx.group`, and for a group function inside another's
 * aggregation ("You can't run a group aggregation function on a group aggregation function").
 */
function groupSql(name: string, args: FormulaNode[], ctx: SqlContext): string {
  if (!ctx.group) ctx.fail(`The formula function ${name} is not run here`);
  if (ctx.inGroup) ctx.fail(`${name} stands inside the aggregation of another group function: a group aggregation function cannot run on a group aggregation function (formulas-aggregation-group.adoc)`);
  const inner: SqlContext = { ...ctx, inGroup: true };
  if (name === 'group_aggregate') {
    const agg = args[0];
    const aggName = agg?.kind === 'call' ? agg.name.toLowerCase() : '';
    return ctx.group({ aggregate: nodeSql(agg ?? { kind: 'missing', start: 0, end: 0 }, inner), groupings: groupList(args[1], inner), filters: groupList(args[2], inner), reaggregate: reaggregation(aggName) });
  }
  const aggName = GROUP_AGGREGATION[name]!;
  const aggregate = FUNCTION_SQL[aggName]!([nodeSql(args[0]!, inner)], [args[0]!]);
  const groupings: GroupList = { query: false, add: args.slice(1).map((a) => listItem(a, inner)), remove: [] };
  return ctx.group({ aggregate, groupings, filters: { query: true, add: [], remove: [] }, reaggregate: reaggregation(aggName) });
}

/** An item of a group_aggregate list: its SQL, and its column when it names one. */
function listItem(n: FormulaNode, ctx: SqlContext): GroupListItem {
  return { sql: nodeSql(n, ctx), ...(n.kind === 'column' ? { column: { name: n.name, ...(n.table !== undefined ? { table: n.table } : {}) } } : {}) };
}

/**
 * A groupings or filters argument of group_aggregate: `{…}`, `query_groups ()` / `query_filters ()` (or the
 * bare word, as the reference writes `query_groups` once), their `+ {…}` and `- {…}`; another value is a
 * list of one (`(customer region)`, as the reference writes it once). No argument is `{}`.
 */
function groupList(n: FormulaNode | undefined, ctx: SqlContext): GroupList {
  if (!n || n.kind === 'missing') return { query: false, add: [], remove: [] };
  const queryWord = (x: FormulaNode): boolean => (x.kind === 'call' && x.args.length === 0 || x.kind === 'column' && !x.bracketed) && /^query_(groups|filters)$/i.test(x.name);
  if (queryWord(n)) return { query: true, add: [], remove: [] };
  if (n.kind === 'list') return { query: false, add: n.items.map((i) => listItem(i, ctx)), remove: [] };
  if (n.kind === 'binary' && (n.op === '+' || n.op === '-')) {
    const left = groupList(n.left, ctx);
    const right = groupList(n.right, ctx);
    if (right.query) ctx.fail(`group_aggregate: query_groups () or query_filters () comes first in a list sum, not after ${n.op}`);
    return n.op === '+' ? { ...left, add: [...left.add, ...right.add] } : { ...left, remove: [...left.remove, ...right.add] };
  }
  return { query: false, add: [listItem(n, ctx)], remove: [] };
}

/**
 * The DuckDB SQL of a formula's expression, each column it names given by `column`, each group function
 * by `group` (absent: refused). Throws QueryError for a formula with a syntax error, an unknown function,
 * or one the emulator does not run (by `fail`).
 */
export function formulaSql(expr: string, column: FormulaColumnSql, fail: FormulaFail, group?: FormulaGroupSql): string {
  const parsed = parseFormula(expr);
  const err = parsed.diagnostics[0];
  if (err) fail(`Syntax error in the formula ${expr} at character ${err.start + 1}: ${err.message}`);
  return nodeSql(parsed.ast, { column, fail, ...(group ? { group } : {}) });
}
