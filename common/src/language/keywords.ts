/**
 * THE keyword catalogue of the `.tsq` search language: every keyword of docs/service-notes.md section 2 (English,
 * en-US keywords only — docs/service-interface.md §8.8), plus the date buckets, aggregations and operators as typed lists.
 *
 * The lexer recognises every `name` and `aliases` entry here as one keyword token (multi-word ones
 * included, case-insensitive, longest match); completion and hover read `meaning` and `example`.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { Aggregation, DateBucket, DateUnit, FilterOperator } from './ast';

/**
 * Category of a keyword, following the sections of the keyword reference (docs/service-notes.md §2.1–2.9):
 * - `general`: top/bottom, sort, by, for each, ranked by, ascending/descending (2.1)
 * - `aggregation`: sum, average, count, … (2.2)
 * - `filter`: `for` (2.2)
 * - `comparison`: `=`, `!=`, `<`, …, `between … and`, `vs`, `all` (2.3)
 * - `constant`: `{null}`, `{empty}` (2.3)
 * - `text`: `contains`, `begins with`, … (2.4)
 * - `date`: relative dates, `after`/`before`, `growth of`, `calendar`, `fiscal`, … (2.5, 2.6)
 * - `dateUnit`: `day`, `week`, … as used in `last 7 days` (2.5, 2.6)
 * - `bucket`: date buckets (`monthly`, `day of week`, `detailed`, …) (2.5, 2.6, docs/service-interface.md §4.3)
 * - `period`: date-part functions (`month of quarter (date)`) (2.7)
 * - `dateName`: named days and months (`monday`, `january`) (2.5)
 * - `in`: `in`, `not in` subsearches (2.8)
 * - `location`: `near`, `within`, `farther than`, … (2.9)
 */
export type KeywordCategory =
  | 'general' | 'aggregation' | 'filter' | 'comparison' | 'constant' | 'text'
  | 'date' | 'dateUnit' | 'bucket' | 'period' | 'dateName' | 'in' | 'location';

/** One keyword of the catalogue. */
export interface KeywordInfo {
  /** Canonical spelling: lower-case, multi-word keywords as one string with single spaces (`sort by`). */
  name: string;
  category: KeywordCategory;
  /** One line saying what it does. */
  meaning: string;
  /** An example query in the API syntax (columns bracketed, values quoted). */
  example: string;
  /** Other spellings the lexer accepts for the same keyword (plurals, `begins_with`, `versus`). */
  aliases?: string[];
  /** Field notes section the keyword comes from (e.g. `2.5`). */
  section: string;
}

/** The date buckets of ast.ts `DateBucket`, in catalogue order (docs/service-interface.md §4.3; docs/service-notes.md §2.5, 2.6). */
export const DATE_BUCKETS: readonly DateBucket[] = [
  'hourly', 'daily', 'weekly', 'monthly', 'quarterly', 'yearly',
  'day of week', 'day of month', 'day of year', 'week of year', 'month of year', 'quarter of year', 'hour of day',
  'detailed',
];

/** Aggregation keywords of ast.ts `Aggregation` (docs/service-notes.md §2.2). */
export const AGGREGATIONS: readonly Aggregation[] = [
  'sum', 'average', 'count', 'total count', 'unique count', 'max', 'min', 'standard deviation', 'variance',
];

/** Text operators (docs/service-notes.md §2.4): only meaningful on text (VARCHAR/CHAR) columns. */
export const TEXT_OPERATORS: readonly FilterOperator[] = [
  'contains', 'not contains', 'begins with', 'not begins with', 'ends with', 'not ends with', 'similar to', 'not similar to',
];

/** Comparison operators written with symbols (docs/service-interface.md §4.3; docs/service-notes.md §2.3). */
export const COMPARISON_OPERATORS: readonly FilterOperator[] = ['=', '!=', '<', '<=', '>', '>='];

/** Word operators that take values on dates (or numbers, for `between`) (docs/service-notes.md §2.3, 2.5). */
export const RANGE_OPERATORS: readonly FilterOperator[] = ['between', 'after', 'before'];

/** Units of relative date filters (ast.ts `DateUnit`; docs/service-notes.md §2.5, 2.6). */
export const DATE_UNITS: readonly DateUnit[] = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

const k = (name: string, category: KeywordCategory, section: string, meaning: string, example: string, aliases?: string[]): KeywordInfo =>
  aliases ? { name, category, meaning, example, aliases, section } : { name, category, meaning, example, section };

/** Every keyword of docs/service-notes.md section 2, with its meaning and an example. Names are unique. */
export const KEYWORDS: readonly KeywordInfo[] = [
  // 2.1 General
  k('top', 'general', '2.1', 'The top N rows of the sorted result (N defaults to 10); with several measures it ranks by the first.', "[origin] [delay] top 10"),
  k('bottom', 'general', '2.1', 'The bottom N rows of the sorted result (N defaults to 10).', "[origin] [delay] bottom 5"),
  k('ranked by', 'general', '2.1', 'Ranks the top or bottom N by the given column; only valid together with top or bottom.', "top 10 [origin] [delay] [distance] ranked by [distance]"),
  k('sort by', 'general', '2.1', 'Sorts the result by a column, optionally ascending or descending.', "[origin] [delay] sort by [delay] descending"),
  k('ascending', 'general', '2.1', 'Sort direction after sort by: smallest first.', "[origin] [delay] sort by [delay] ascending"),
  k('descending', 'general', '2.1', 'Sort direction after sort by: largest first.', "[origin] [delay] sort by [delay] descending"),
  k('by', 'general', '2.1', 'Groups by the following column (a measure after by is treated as an attribute).', "[delay] by [origin]"),
  k('for each', 'general', '2.1', 'Grouping scope for top/bottom and aggregations, or for a relative date (last 2 days for each month).', "[origin] by [delay] for each [destination] bottom"),
  k('or', 'general', '2.4', 'Joins alternatives after similar to.', "[origin] similar to 'S%' or 'P%'"),
  // 2.2 Number (aggregations) and for
  k('sum', 'aggregation', '2.2', 'Sum of a measure.', "sum [delay] [origin]"),
  k('average', 'aggregation', '2.2', 'Mean of a measure.', "average [delay] by [origin]"),
  k('count', 'aggregation', '2.2', 'Number of rows.', "count [origin] by [destination]"),
  k('total count', 'aggregation', '2.2', 'Total count of rows.', "total count [origin] by [destination]"),
  k('unique count', 'aggregation', '2.2', 'Number of distinct values.', "unique count [destination] by [origin]"),
  k('max', 'aggregation', '2.2', 'Largest value.', "max [delay] by [origin]"),
  k('min', 'aggregation', '2.2', 'Smallest value.', "min [delay] by [origin]"),
  k('standard deviation', 'aggregation', '2.2', 'Standard deviation of a measure.', "standard deviation [delay] by [origin]"),
  k('variance', 'aggregation', '2.2', 'Variance of a measure.', "variance [delay] by [origin]"),
  k('for', 'filter', '2.2', 'Introduces a filter, including on an aggregate (acts like HAVING).', "[origin] [delay] for sum [delay] > 5000"),
  // 2.3 Comparative
  k('=', 'comparison', '2.3', 'Equal to one of the values.', "[origin] = 'SEA', 'PDX'"),
  k('!=', 'comparison', '2.3', 'Different from the values.', "[delay] [origin] != 'SEA'"),
  k('<', 'comparison', '2.3', 'Less than.', "[origin] [delay] < 20"),
  k('<=', 'comparison', '2.3', 'Less than or equal to.', "[origin] [delay] <= 0"),
  k('>', 'comparison', '2.3', 'Greater than.', "[origin] [distance] > 1000"),
  k('>=', 'comparison', '2.3', 'Greater than or equal to (works on text too).', "[origin] [distance] >= 1000"),
  k('between', 'comparison', '2.3', 'Between two values, both included: between … and ….', "[origin] [distance] between 0 and 1000"),
  k('and', 'comparison', '2.3', 'Second bound of between … and ….', "[origin] [distance] between 0 and 1000"),
  k('vs', 'comparison', '2.3', 'Compares two filtered sides side by side.', "[delay] [origin] = 'SEA' vs [origin] = 'PDX'", ['versus']),
  k('all', 'comparison', '2.3', 'Everything, as the other side of a vs phrase.', "[delay] [origin] = 'SEA' vs all"),
  k('everything', 'comparison', '2.3', 'Listed among comparative keywords; no documented example.', "[delay] everything"),
  k('{null}', 'constant', '2.3', 'The null value (missing or invalid values), with = or !=.', "[origin] [delay] = {null}"),
  k('{empty}', 'constant', '2.3', 'The empty value (empty or whitespace-only strings), with = or !=.', "[delay] [origin] != {empty}"),
  // 2.4 Text
  k('contains', 'text', '2.4', 'Text contains the value (several contains on one column are AND-ed by default).', "[origin] contains 'SE'"),
  k('not contains', 'text', '2.4', 'Text does not contain the value.', "[origin] not contains 'SE'"),
  k('begins with', 'text', '2.4', 'Text begins with the value (several on one column are OR-ed).', "[origin] begins with 'S'", ['begins_with']),
  k('not begins with', 'text', '2.4', 'Text does not begin with the value.', "[origin] not begins with 'S'", ['not begins_with']),
  k('ends with', 'text', '2.4', 'Text ends with the value (several on one column are OR-ed).', "[origin] ends with 'A'", ['ends_with']),
  k('not ends with', 'text', '2.4', 'Text does not end with the value.', "[origin] not ends with 'A'", ['not ends_with']),
  k('similar to', 'text', '2.4', "Text matches a pattern: % any run of characters, _ one character.", "[origin] similar to 'S_A'"),
  k('not similar to', 'text', '2.4', 'Text does not match the pattern.', "[origin] not similar to 'S%'"),
  // 2.5 Date
  k('after', 'date', '2.5', 'Dates after the value.', "[delay] [date] after '2001-01-31'"),
  k('before', 'date', '2.5', 'Dates before the value.', "[delay] [date] before '2001-03-01'"),
  k('today', 'date', '2.5', 'Today.', "[delay] [date] today"),
  k('yesterday', 'date', '2.5', 'Yesterday.', "[delay] [date] yesterday"),
  k('this', 'date', '2.5', 'The current period: this day/week/month/quarter/year/hour/minute.', "[delay] [date] this month"),
  k('last', 'date', '2.5', 'The previous period (last month) or the last N periods (last 7 days).', "[delay] [date] last 7 days"),
  k('next', 'date', '2.5', 'The next period (next month) or the next N periods (next 7 days).', "[delay] [date] next 2 weeks"),
  k('ago', 'date', '2.5', 'N periods ago: 2 days ago.', "[delay] [date] 2 days ago"),
  k('week to date', 'date', '2.5', 'From the start of the week to today.', "[delay] [date] week to date"),
  k('month to date', 'date', '2.5', 'From the start of the month to today.', "[delay] [date] month to date"),
  k('quarter to date', 'date', '2.5', 'From the start of the quarter to today.', "[delay] [date] quarter to date"),
  k('year to date', 'date', '2.5', 'From the start of the year to today.', "[delay] [origin] [date] year to date"),
  k('growth of', 'date', '2.5', 'Growth of a measure over a date column: growth of [measure] by [date].', "growth of [delay] by [date] monthly"),
  k('year-over-year', 'date', '2.5', 'Compares each period with the same period of the previous year (after growth of … by …).', "growth of [delay] by [date] monthly year-over-year"),
  k('calendar', 'date', '2.5', 'calendar.name picks a custom calendar; calendar alone uses the Gregorian calendar.', "[delay] [date].monthly calendar.fiscal"),
  k('fiscal', 'date', '2.5', 'Uses the fiscal-offset calendar.', "[delay] [date].monthly fiscal"),
  // 2.5 / 2.6 units
  k('second', 'dateUnit', '2.6', 'Seconds, in a relative date.', "[delay] [date] last 30 seconds", ['seconds']),
  k('minute', 'dateUnit', '2.6', 'Minutes, in a relative date.', "[delay] [date] last 30 minutes", ['minutes']),
  k('hour', 'dateUnit', '2.6', 'Hours, in a relative date (or hour (datetime) as a date part).', "[delay] [date] last 2 hours", ['hours']),
  k('day', 'dateUnit', '2.5', 'Days, in a relative date (or day (date) as a date part).', "[delay] [date] last 7 days", ['days']),
  k('week', 'dateUnit', '2.5', 'Weeks, in a relative date.', "[delay] [date] last 2 weeks", ['weeks']),
  k('month', 'dateUnit', '2.5', 'Months, in a relative date.', "[delay] [date] last 6 months", ['months']),
  k('quarter', 'dateUnit', '2.5', 'Quarters, in a relative date (or quarter (date) as a date part).', "[delay] [date] last 2 quarters", ['quarters']),
  k('year', 'dateUnit', '2.5', 'Years, in a relative date.', "[delay] [date] last 5 years", ['years']),
  // Buckets (docs/service-interface.md §4.3; 2.5, 2.6)
  k('hourly', 'bucket', '2.5', 'Groups dates by hour.', "[delay] [date].hourly"),
  k('daily', 'bucket', '2.5', 'Groups dates by day.', "[delay] [date].daily"),
  k('weekly', 'bucket', '2.5', 'Groups dates by week.', "[delay] [date].weekly"),
  k('monthly', 'bucket', '2.5', 'Groups dates by month.', "[delay] [date].monthly"),
  k('quarterly', 'bucket', '2.5', 'Groups dates by quarter.', "[delay] [date].quarterly"),
  k('yearly', 'bucket', '2.5', 'Groups dates by year.', "[delay] [date].yearly"),
  k('day of week', 'bucket', '2.5', 'Groups dates by day of the week (multi-word buckets are quoted after the dot).', "[delay] [date].'day of week'"),
  k('day of month', 'bucket', '2.7', 'Groups dates by day of the month.', "[delay] [date].'day of month'"),
  k('day of year', 'bucket', '2.7', 'Groups dates by day of the year.', "[delay] [date].'day of year'"),
  k('week of year', 'bucket', '2.7', 'Groups dates by week of the year.', "[delay] [date].'week of year'"),
  k('month of year', 'bucket', '2.7', 'Groups dates by month of the year.', "[delay] [date].'month of year'"),
  k('quarter of year', 'bucket', '2.7', 'Groups dates by quarter of the year.', "[delay] [date].'quarter of year'"),
  k('hour of day', 'bucket', '2.6', 'Groups times by hour of the day.', "[delay] [date].'hour of day'"),
  k('detailed', 'bucket', '2.6', 'No bucketing: every distinct date or time.', "[delay] [date].detailed"),
  // 2.7 Period (date-part functions) not already buckets
  k('month of quarter', 'period', '2.7', 'Month of the quarter of a date: month of quarter (date).', "month of quarter ([date]) [delay]"),
  k('week of quarter', 'period', '2.7', 'Week of the quarter of a date.', "week of quarter ([date]) [delay]"),
  k('week of month', 'period', '2.7', 'Week of the month of a date.', "week of month ([date]) [delay]"),
  k('day of quarter', 'period', '2.7', 'Day of the quarter of a date.', "day of quarter ([date]) [delay]"),
  k('to date', 'period', '2.7', 'Period to date.', "[delay] [date] year to date"),
  // Named days and months (2.5)
  ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) =>
    k(d, 'dateName', '2.5', `Dates falling on a ${d[0].toUpperCase()}${d.slice(1)}.`, `[delay] [date] ${d}`)),
  ...['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].map((m) =>
    k(m, 'dateName', '2.5', `Dates in ${m[0].toUpperCase()}${m.slice(1)} (optionally followed by a year).`, `[delay] [date] ${m} 2001`)),
  // 2.8 In / not in
  k('in', 'in', '2.8', 'Keeps the values that a subsearch in parentheses also returns.', "[origin] in (top 10 [origin] [delay]) [delay]"),
  k('not in', 'in', '2.8', 'Keeps the values that a subsearch in parentheses does not return.', "[origin] not in (top 10 [origin] [delay]) [delay]"),
  // 2.9 Location
  k('near', 'location', '2.9', 'Places near a location (needs latitude/longitude data).', "[delay] [origin] near 'seattle'"),
  k('within', 'location', '2.9', 'Distance bound after near: within N miles|km|meters.', "[delay] [origin] near 'seattle' within 50 miles"),
  k('farther than', 'location', '2.9', 'Places farther than a distance from a location.', "[delay] [origin] farther than 80 km from 'seattle'"),
  k('from', 'location', '2.9', 'The location after farther than N units.', "[delay] [origin] farther than 80 km from 'seattle'"),
  k('miles', 'location', '2.9', 'Distance unit.', "[origin] near 'seattle' within 50 miles"),
  k('km', 'location', '2.9', 'Distance unit.', "[origin] near 'seattle' within 50 km"),
  k('meters', 'location', '2.9', 'Distance unit.', "[origin] near 'seattle' within 500 meters"),
];

const byName = new Map<string, KeywordInfo>();
for (const info of KEYWORDS) {
  byName.set(info.name, info);
  for (const alias of info.aliases ?? []) byName.set(alias, info);
}

/**
 * Looks a keyword up by any spelling (canonical name or alias), case-insensitively, runs of whitespace
 * counting as one space: `findKeyword('Sort  BY')` is the `sort by` entry. Undefined when it is no keyword.
 */
export function findKeyword(name: string): KeywordInfo | undefined {
  const direct = byName.get(name);
  if (direct) return direct;
  return byName.get(name.trim().toLowerCase().replace(/\s+/g, ' '));
}

/** True when `name` (any case) is one of the date buckets; returns the canonical bucket or null. */
export function findDateBucket(name: string): DateBucket | null {
  const n = name.trim().toLowerCase().replace(/\s+/g, ' ');
  return (DATE_BUCKETS as readonly string[]).includes(n) ? (n as DateBucket) : null;
}

/**
 * Every spelling the lexer recognises as a keyword made of words (canonical names and aliases, lower-case,
 * words separated by one space). Symbol keywords (`=`, `{null}`) are lexed as operators and constants.
 */
export const WORD_KEYWORD_SPELLINGS: readonly string[] = [...byName.keys()].filter((s) => /^[a-z]/.test(s));
