/**
 * THE keyword catalogue of the `.tsq` search language (docs/service-notes.md section 2; en-US keywords only,
 * docs/service-interface.md §8.8): every keyword with its meaning, example and reference page, the date
 * buckets, units, aggregations and operators as `as const` lists, and the column types each applies to.
 * Everything else derives from it: the lexer's table, the parser's sets, the AST's unions, completion,
 * hover, validation, the TextMate grammar (scripts/tmGrammar.ts), `tsq://language-reference` and the
 * emulator's compiler. Every `example` runs through `tsq check` and the emulator
 * (test/cli/keyword-examples.test.ts); test/unit/keywords-one-place.test.ts fails on a keyword list elsewhere.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import { typesOf, type ColumnDataType } from '../model';
import { isOneOf } from '../guards';

/** A catalogue entry after its name and category: section, meaning, example, and aliases or further fields (as `k` below takes them). */
type Entry = [section: string, meaning: string, example: string, extra?: string[] | Extra];

/**
 * The names of a record of catalogue entries, in the order written: the typed lists (units, buckets,
 * aggregations, text operators) are these names, so each is declared once, beside its catalogue entry.
 */
function namesOf<K extends string>(entries: Record<K, Entry>): K[] {
  // Object.keys is typed string[]: each key is one of the record's own, K
  return Object.keys(entries).filter((n): n is K => Object.hasOwn(entries, n));
}

// ---- the typed lists: the AST's unions are `typeof LIST[number]` of these (ast.ts re-exports them) ----------

/** The date bucket keywords, in catalogue order (docs/service-interface.md §4.3; docs/service-notes.md §2.5–2.7): name → catalogue entry. */
const BUCKET_KEYWORDS = {
  hourly: ['2.5', 'Groups dates by hour.', "[delay] [date].hourly"],
  daily: ['2.5', 'Groups dates by day.', "[delay] [date].daily"],
  weekly: ['2.5', 'Groups dates by week.', "[delay] [date].weekly"],
  monthly: ['2.5', 'Groups dates by month.', "[delay] [date].monthly"],
  quarterly: ['2.5', 'Groups dates by quarter.', "[delay] [date].quarterly"],
  yearly: ['2.5', 'Groups dates by year.', "[delay] [date].yearly"],
  'day of week': ['2.5', 'Groups dates by day of the week (multi-word buckets are quoted after the dot).', "[delay] [date].'day of week'"],
  'day of month': ['2.7', 'Groups dates by day of the month.', "[delay] [date].'day of month'"],
  'day of year': ['2.7', 'Groups dates by day of the year.', "[delay] [date].'day of year'"],
  'week of year': ['2.7', 'Groups dates by week of the year.', "[delay] [date].'week of year'"],
  'month of year': ['2.7', 'Groups dates by month of the year.', "[delay] [date].'month of year'"],
  'quarter of year': ['2.7', 'Groups dates by quarter of the year.', "[delay] [date].'quarter of year'"],
  'hour of day': ['2.6', 'Groups times by hour of the day.', "[delay] [date].'hour of day'", { page: 'hour_of_day.adoc' }],
  detailed: ['2.6', 'No bucketing: every distinct date or time.', "[delay] [date].detailed"],
} satisfies Record<string, Entry>;
/** The period parts of list-period.adoc that have no bucket word of their own (`[date].'day of quarter'`), also written as a period function. */
const PERIOD_PART_KEYWORDS = {
  'month of quarter': ['2.7', 'Month of the quarter of a date: month of quarter (date), or [date].\'month of quarter\'.', "month of quarter ([date]) [delay]", { page: 'month_of_quarter.adoc' }],
  'week of quarter': ['2.7', 'Week of the quarter of a date.', "week of quarter ([date]) [delay]"],
  'week of month': ['2.7', 'Week of the month of a date.', "week of month ([date]) [delay]"],
  'day of quarter': ['2.7', 'Day of the quarter of a date: day of quarter (date), or [date].\'day of quarter\'.', "[delay] [date].'day of quarter'", { page: 'day_of_quarter.adoc' }],
} satisfies Record<string, Entry>;
/** The date buckets, in catalogue order: the bucket keywords, then the period parts (both declared once, above, with their catalogue entries). */
export const DATE_BUCKETS = [...namesOf(BUCKET_KEYWORDS), ...namesOf(PERIOD_PART_KEYWORDS)];
/** A date bucket: written `[column].bucket`, `[column].'multi word'`, as a bare keyword after a date column, or made by a period function (`quarter ([date])`). */
export type DateBucket = typeof DATE_BUCKETS[number];

/** Aggregation keywords (docs/service-notes.md §2.2): name → catalogue entry. `count` counts rows; `unique count` counts distinct values. */
const AGGREGATION_KEYWORDS = {
  sum: ['2.2', 'Sum of a measure.', "sum [delay] [origin]"],
  average: ['2.2', 'Mean of a measure.', "average [delay] by [origin]"],
  count: ['2.2', 'Number of rows.', "count [origin] by [destination]"],
  'total count': ['2.2', 'Total count of rows.', "total count [origin] by [destination]"],
  'unique count': ['2.2', 'Number of distinct values.', "unique count [destination] by [origin]"],
  max: ['2.2', 'Largest value.', "max [delay] by [origin]"],
  min: ['2.2', 'Smallest value.', "min [delay] by [origin]"],
  'standard deviation': ['2.2', 'Standard deviation of a measure.', "standard deviation [delay] by [origin]"],
  variance: ['2.2', 'Variance of a measure.', "variance [delay] by [origin]"],
} satisfies Record<string, Entry>;
/** Aggregation keywords, in catalogue order. */
export const AGGREGATIONS = namesOf(AGGREGATION_KEYWORDS);
/** An aggregation keyword. */
export type Aggregation = typeof AGGREGATIONS[number];

/** Comparison operators written with symbols (docs/service-interface.md §4.3; docs/service-notes.md §2.3). */
export const COMPARISON_OPERATORS = ['=', '!=', '<', '<=', '>', '>='] as const;
/** The comparison operators that order values (`<`, `<=`, `>`, `>=`), on numbers, dates and text. */
export const ORDER_OPERATORS = COMPARISON_OPERATORS.filter((op) => op !== '=' && op !== '!=');
/** Text operators (docs/service-notes.md §2.4): name → catalogue entry. */
const TEXT_OPERATOR_KEYWORDS = {
  contains: ['2.4', 'Text contains the value (several contains on one column are AND-ed by default).', "[origin] contains 'SE'"],
  'not contains': ['2.4', 'Text does not contain the value.', "[origin] not contains 'SE'"],
  'begins with': ['2.4', 'Text begins with the value (several on one column are OR-ed).', "[origin] begins with 'S'", ['begins_with']],
  'not begins with': ['2.4', 'Text does not begin with the value.', "[origin] not begins with 'S'", ['not begins_with']],
  'ends with': ['2.4', 'Text ends with the value (several on one column are OR-ed).', "[origin] ends with 'A'", ['ends_with']],
  'not ends with': ['2.4', 'Text does not end with the value.', "[origin] not ends with 'A'", ['not ends_with']],
  'similar to': ['2.4', "Text matches a pattern: % any run of characters, _ one character.", "[origin] similar to 'S_A'", { page: 'similar-to.adoc' }],
  'not similar to': ['2.4', 'Text does not match the pattern.', "[origin] not similar to 'S%'"],
} satisfies Record<string, Entry>;
/** Text operators, only meaningful on text (VARCHAR/CHAR) columns, in catalogue order. */
export const TEXT_OPERATORS = namesOf(TEXT_OPERATOR_KEYWORDS);
/** Word operators that take values on dates (or numbers, for `between`) (docs/service-notes.md §2.3, 2.5). */
export const RANGE_OPERATORS = ['between', 'after', 'before'] as const;
/** Every filter operator: `[column] <operator> values`. */
export const FILTER_OPERATORS = [...COMPARISON_OPERATORS, ...RANGE_OPERATORS, ...TEXT_OPERATORS] as const;
/** A filter operator (docs/service-interface.md §4.3; docs/service-notes.md §2.3–2.5). */
export type FilterOperator = typeof FILTER_OPERATORS[number];
/** Word operators (the filter operators written as keywords). */
export const WORD_OPERATORS: readonly FilterOperator[] = [...RANGE_OPERATORS, ...TEXT_OPERATORS];

/** Units of relative date filters (docs/service-notes.md §2.5, 2.6; `second`: list-time.adoc `last_n_seconds.adoc`): name → catalogue entry. */
const DATE_UNIT_KEYWORDS = {
  second: ['2.6', 'Seconds, in a relative date.', "[delay] [date] last 30 seconds", { aliases: ['seconds'], page: 'last_n_seconds.adoc' }],
  minute: ['2.6', 'Minutes, in a relative date.', "[delay] [date] last 30 minutes", ['minutes']],
  hour: ['2.6', 'Hours, in a relative date (or hour (datetime) as a date part).', "[delay] [date] last 2 hours", ['hours']],
  day: ['2.5', 'Days, in a relative date (last 7 days), a grouping (by day) or day (date) as a date part.', "[delay] [date] last 7 days", ['days']],
  week: ['2.5', 'Weeks, in a relative date (last 2 weeks) or a grouping (by week).', "[delay] by week", { aliases: ['weeks'], page: 'week.adoc' }],
  month: ['2.5', 'Months, in a relative date (last 6 months) or a grouping (by month).', "[delay] by month", { aliases: ['months'], page: 'month.adoc' }],
  quarter: ['2.5', 'Quarters, in a relative date (or quarter (date) as a date part).', "[delay] [date] last 2 quarters", ['quarters']],
  year: ['2.5', 'Years, in a relative date.', "[delay] [date] last 5 years", ['years']],
} satisfies Record<string, Entry>;
/** Units of relative date filters, in catalogue order. */
export const DATE_UNITS = namesOf(DATE_UNIT_KEYWORDS);
/** A unit of a relative date filter. */
export type DateUnit = typeof DATE_UNITS[number];

/**
 * The names after `calendar.` that are no custom calendar: the Gregorian calendar (`calendar` alone is
 * written as the name `calendar`; calendar.adoc) and the cluster's fiscal offset (fiscal.adoc). Any other
 * name is a custom calendar's (custom_calendar.adoc), whose list only the service has.
 */
export const GREGORIAN_CALENDAR_NAMES = ['gregorian', 'calendar', 'standard'] as const;
export const FISCAL_CALENDAR_NAME = 'fiscal';

/** Whether `calendar.<name>` names a custom calendar (not the Gregorian or the fiscal one), ignoring case. */
export function isCustomCalendarName(name: string): boolean {
  const n = name.trim().toLowerCase();
  return n !== FISCAL_CALENDAR_NAME && !isOneOf(GREGORIAN_CALENDAR_NAMES, n);
}

/**
 * Whether a relative date filter is a rolling one, which a custom calendar does not support
 * (docs.thoughtspot.com cloud/latest/connections-cust-cal, Limitations: "Rolling date filters (example: `last N
 * months`) are not supported"): `last N`/`next N` weeks, months, quarters or years with N > 1.
 */
export function isRollingPeriod(f: { type: string; which?: string; n?: number; unit?: string }): boolean {
  return f.type === 'period' && f.which !== 'this' && (f.n ?? 1) > 1 && (f.unit === 'week' || f.unit === 'month' || f.unit === 'quarter' || f.unit === 'year');
}

/** Whether a filter value is a year (`2001`, `'2001'`): a named period, not a date (`[date] = 2001` compares the year; docs/service-notes.md §2.5). */
export function isYearValue(raw: string): boolean {
  return /^\d{4}$/.test(raw.trim());
}

/**
 * Whether a filter compares a date with a named period by order, which a custom calendar does not support
 * (docs.thoughtspot.com cloud/latest/connections-cust-cal, Limitations: "Custom calendar does not support a
 * filter such as `order date >= august 2025`"): an order operator (`<`, `<=`, `>`, `>=`, `between`,
 * `after`, `before`) with a year among its values (`values`: each value as written, unquoted). The language
 * service warns and the emulator refuses, under `calendar.<custom name>` only; `=`/`!=` with a year is the
 * calendar's year.
 */
export function isNamedPeriodComparison(op: FilterOperator, values: readonly string[]): boolean {
  return op !== '=' && op !== '!=' && !isOneOf(TEXT_OPERATORS, op) && values.some(isYearValue);
}

// ---- the token form: what ThoughtSpot itself writes (docs/service-notes.md §2.11) ------------------------

/**
 * The boolean values, written without quotes: `[is delayed] = true`, `[is delayed].true` (exported Answer TML's
 * `search_query`; docs/service-notes.md §2.11). A value of a BOOL column; on another column a text.
 */
export const BOOLEAN_VALUES = ['true', 'false'] as const;

/** The boolean a word names (`true`, `FALSE`, any case), or undefined when it names none. */
export function booleanOf(word: string): boolean | undefined {
  const lower = word.toLowerCase();
  const at = BOOLEAN_VALUES.findIndex((b) => b === lower);
  return at < 0 ? undefined : at === 0;
}

/**
 * The separator of a column's table path in the token form: `[flights_1::origin]` is the column `origin` of
 * the path `flights_1` (a model's join path, as in the TML examples of developer-docs; docs/service-notes.md §2.11).
 */
export const TABLE_PATH_SEPARATOR = '::';

/**
 * A column name as written, split at its last table path separator: `flights_1::origin` is `{ path:
 * 'flights_1', column: 'origin' }`; a name without one is `{ path: undefined, column: name }`. Names are
 * kept as written (not trimmed, not case-folded).
 */
export function splitColumnPath(name: string): { path: string | undefined; column: string } {
  const at = name.lastIndexOf(TABLE_PATH_SEPARATOR);
  if (at <= 0 || at + TABLE_PATH_SEPARATOR.length >= name.length) return { path: undefined, column: name };
  return { path: name.slice(0, at), column: name.slice(at + TABLE_PATH_SEPARATOR.length) };
}

/** Whether a text is a date as the token form writes one after the dot: `01/15/2001` (MM/DD/YYYY) or `2001-01-15`, a time optional. */
export function isDateText(text: string): boolean {
  return /^(\d{1,2}\/\d{1,2}\/\d{4}|\d{4}-\d{1,2}-\d{1,2})([ T]\d{1,2}:\d{2}(:\d{2})?)?$/.test(text.trim());
}

/**
 * Which reading a word after `[column].` has, decided by the column's data type (docs/service-notes.md
 * §2.11): a date bucket on a column a bucket applies to (`[date].monthly`); else a value when it is one the
 * type can hold (any text on VARCHAR/CHAR, a number on a numeric column, `true`/`false` on BOOL, a date or
 * a year on DATE/DATE_TIME, `hh:mm` on TIME); else undefined, neither (the caller names both readings).
 * `word` is the text after the dot, unquoted; `bucket` the bucket it names, when it names one.
 */
export function dotReading(word: string, bucket: DateBucket | null, type: ColumnDataType): 'bucket' | 'value' | undefined {
  if (bucket && DATE_TYPES.has(type)) return bucketAppliesTo(bucket, type) ? 'bucket' : undefined;
  const w = word.trim();
  if (TEXT_TYPES.has(type)) return 'value';
  if (NUMERIC_TYPES.has(type)) return w !== '' && Number.isFinite(Number(w)) ? 'value' : undefined;
  if (type === 'BOOL') return booleanOf(w) !== undefined ? 'value' : undefined;
  if (CALENDAR_TYPES.has(type)) return isDateText(w) || isYearValue(w) ? 'value' : undefined;
  if (type === 'TIME') return /^\d{1,2}:\d{2}(:\d{2})?$/.test(w) ? 'value' : undefined;
  return 'value';
}

/** The `<unit> to date` keywords and their unit (keywords-to-date; list-date.adoc). */
export const TO_DATE = { 'week to date': 'week', 'month to date': 'month', 'quarter to date': 'quarter', 'year to date': 'year' } as const;
/** The unit of a to-date filter. */
export type ToDateUnit = typeof TO_DATE[keyof typeof TO_DATE];

/**
 * The documented `<unit> to date for each <period>` phrases, each a page of its own (`month to date for
 * each quarter`: month_to_date_for_each_quarter.adoc, example `sales by product month to date for each
 * quarter`; the week forms' examples group by a date, `sales by order date week to date for each month`).
 * Not in list-date.adoc; keywords-to-date gives their meaning (the FOR EACH form).
 */
export const TO_DATE_FOR_EACH: readonly { unit: ToDateUnit; period: DateUnit; page?: string }[] = [
  { unit: 'week', period: 'week' }, { unit: 'week', period: 'month' }, { unit: 'week', period: 'quarter' },
  // in the software reference only (its list-date.adoc links it; the cloud tree has no such partial)
  { unit: 'week', period: 'year', page: 'software/modules/ROOT/partials/keywords/week_to_date_for_each_year.adoc' },
  { unit: 'month', period: 'month' }, { unit: 'month', period: 'quarter' }, { unit: 'month', period: 'year' },
  { unit: 'quarter', period: 'quarter' }, { unit: 'quarter', period: 'year' },
  { unit: 'year', period: 'year' },
];

/**
 * Period functions (list-period.adoc): `quarter ([date])` is the date part the bucket names, so the parser
 * makes it a column clause on `[date]` with that bucket.
 */
export const PERIOD_FUNCTIONS = {
  quarter: 'quarter of year', 'quarter of year': 'quarter of year', 'month of quarter': 'month of quarter', 'month of year': 'month of year',
  'week of year': 'week of year', 'week of quarter': 'week of quarter', 'week of month': 'week of month',
  'day of year': 'day of year', 'day of quarter': 'day of quarter', 'day of month': 'day of month', 'day of week': 'day of week',
  day: 'day of month', hour: 'hour of day',
} as const satisfies Record<string, DateBucket>;

/** Named days (day_name.adoc, monday.adoc …): ISO day of the week, Monday = 1. */
export const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
/** Named months (january.adoc …, month_year_name.adoc): month 1–12 in order. */
export const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'] as const;
/**
 * Named quarters (q1.adoc … q4.adoc, `purchases q1`; a year may follow, `q1 2024`, as after a month, month_year_name.adoc):
 * quarter 1–4 in order. Under `calendar.fiscal` or a custom calendar the quarter is that calendar's (connections-cust-cal
 * "Search features": "date keywords, like this quarter and q3").
 */
export const QUARTER_NAMES = ['q1', 'q2', 'q3', 'q4'] as const;

/** Distance units of the location keywords (list-location.adoc). Meters per unit (1 mile = 1609.344 m, the international mile). */
export const DISTANCE_UNITS = { miles: 1609.344, km: 1000, meters: 1 } as const;
/** A distance unit of the location keywords (`within 50 miles`). */
export type DistanceUnit = keyof typeof DISTANCE_UNITS;

/** The `by <unit>` grouping of list-date.adoc (`revenue by week last quarter`): the bucket each unit groups by. */
export const UNIT_BUCKETS = {
  second: 'detailed', minute: 'detailed', hour: 'hourly', day: 'daily', week: 'weekly', month: 'monthly', quarter: 'quarterly', year: 'yearly',
} as const satisfies Record<DateUnit, DateBucket>;

/**
 * The period-over-period keywords of `growth of <measure> by <date> <bucket> <period-over-period>`
 * (docs.thoughtspot.com cloud/latest/search-growth, "Display periods (daily) over time", thoughtspot/thoughtspot-docs
 * cloud/modules/ROOT/pages/search-growth.adoc): the period each compares with (each bucket's value against the
 * same place one `period` earlier) and, from the page's table, the buckets it may follow. `year-over-year` is
 * also a partial of its own per bucket (daily_year_over_year.adoc, …). How places line up where the page is
 * silent: docs/service-notes.md §2.5 "Growth and year-over-year".
 */
export const PERIOD_OVER_PERIOD = {
  'year-over-year': { period: 'year', buckets: ['quarterly', 'monthly', 'weekly', 'daily'] },
  'quarter-over-quarter': { period: 'quarter', buckets: ['monthly', 'weekly', 'daily'] },
  'month-over-month': { period: 'month', buckets: ['weekly', 'daily'] },
  'week-over-week': { period: 'week', buckets: ['daily'] },
  'day-over-day': { period: 'day', buckets: ['hourly'] },
} as const satisfies Record<string, { period: DateUnit; buckets: readonly DateBucket[] }>;
/** A period-over-period keyword (`month-over-month`). */
export type PeriodOverPeriod = keyof typeof PERIOD_OVER_PERIOD;
/** The period a period-over-period keyword compares with (`month` for `month-over-month`). */
export type GrowthPeriod = typeof PERIOD_OVER_PERIOD[PeriodOverPeriod]['period'];

/**
 * The bucket of `growth of [measure] by [date]` when none is written: monthly (search-growth's first example,
 * `growth of sales by date`, is pictured as "Growth of total sales by monthly date"). The emulator groups by
 * it, and the language service checks a period-over-period keyword against it.
 */
export const GROWTH_DEFAULT_BUCKET: DateBucket = 'monthly';

/** `a, b or c`. */
const orList = (xs: readonly string[]): string => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]!}` : xs[0] ?? '');

/**
 * Why a period-over-period keyword cannot follow a bucket, or undefined when it can (search-growth's table:
 * `month-over-month` after weekly or daily, …). One text for the language service (`tsq.periodOverPeriodBucket`)
 * and the emulator's 400.
 */
export function periodOverPeriodBucketError(keyword: PeriodOverPeriod, bucket: DateBucket): string | undefined {
  const buckets: readonly DateBucket[] = PERIOD_OVER_PERIOD[keyword].buckets;
  if (buckets.includes(bucket)) return undefined;
  return `${keyword} follows a ${orList(buckets)} bucket, not ${bucket} (growth of [measure] by [date] ${buckets[0]!} ${keyword}; docs.thoughtspot.com cloud/latest/search-growth)`;
}

// ---- column types: which types a bucket, a unit, an operator applies to (one fact for the language service and the emulator) ----

/** Numeric data types (docs/service-notes.md §3.2). */
export const NUMERIC_TYPES: ReadonlySet<ColumnDataType> = new Set<ColumnDataType>(typesOf('number'));
/** Text data types: the only ones the text operators apply to (docs/service-notes.md §2.4). */
export const TEXT_TYPES: ReadonlySet<ColumnDataType> = new Set<ColumnDataType>(typesOf('text'));
/** Data types holding a calendar date: relative date filters, named dates and the calendar buckets apply. */
export const CALENDAR_TYPES: ReadonlySet<ColumnDataType> = new Set<ColumnDataType>(typesOf('date'));
/** Data types on which some date bucket applies (`DATE`, `DATE_TIME`, `TIME`). */
export const DATE_TYPES: ReadonlySet<ColumnDataType> = new Set<ColumnDataType>([...typesOf('date'), ...typesOf('time')]);

/** Buckets that need a time of day (docs/service-notes.md §2.6, list-time.adoc). */
const TIME_OF_DAY_BUCKETS: ReadonlySet<DateBucket> = new Set<DateBucket>(['hourly', 'hour of day']);

/**
 * Whether a date bucket applies to a column of a data type: DATE has no time-of-day bucket, TIME only
 * `hourly`, `hour of day` and `detailed`, DATE_TIME all (docs/service-interface.md §4.3; docs/service-notes.md §2.5, 2.6).
 */
export function bucketAppliesTo(bucket: DateBucket, type: ColumnDataType): boolean {
  if (type === 'DATE_TIME') return true;
  if (type === 'DATE') return !TIME_OF_DAY_BUCKETS.has(bucket);
  if (type === 'TIME') return TIME_OF_DAY_BUCKETS.has(bucket) || bucket === 'detailed';
  return false;
}

/** The date buckets that fit a column's data type (`bucketAppliesTo`), in catalogue order; empty for non-date types. */
export function bucketsFor(type: ColumnDataType): DateBucket[] {
  return DATE_BUCKETS.filter((b) => bucketAppliesTo(b, type));
}

/** Whether a relative date filter in a unit applies to a data type: a calendar date; seconds, minutes and hours need DATE_TIME (list-time.adoc). */
export function unitAppliesTo(unit: DateUnit, type: ColumnDataType): boolean {
  if (unit === 'second' || unit === 'minute' || unit === 'hour') return type === 'DATE_TIME';
  return CALENDAR_TYPES.has(type);
}

/** The filter operators that fit a column's data type (docs/service-notes.md §2.3–2.5); all of them when the type is unknown. */
export function operatorsFor(type: ColumnDataType | undefined): FilterOperator[] {
  if (!type) return [...FILTER_OPERATORS];
  return FILTER_OPERATORS.filter((op) => operatorAppliesTo(op, type));
}

/**
 * Whether a filter operator applies to a data type: `=`/`!=` to every type; the order comparisons and
 * `between` to all but BOOL (`>=` works on text too, gt_equal.adoc); `after`/`before` to dates and times;
 * the text operators to text.
 */
export function operatorAppliesTo(op: FilterOperator, type: ColumnDataType): boolean {
  if (op === '=' || op === '!=') return true;
  if (isOneOf(TEXT_OPERATORS, op)) return TEXT_TYPES.has(type);
  if (op === 'after' || op === 'before') return DATE_TYPES.has(type);
  return type !== 'BOOL';
}

/** The aggregations that need a numeric column (the others apply to every type) (docs/service-notes.md §2.2). */
export const NUMERIC_AGGREGATIONS: ReadonlySet<Aggregation> = new Set<Aggregation>(['sum', 'average', 'standard deviation', 'variance']);

/**
 * The date column a date keyword without a named date column applies to (`[sales] last 7 days`,
 * `[revenue] weekly`, `[delay] monday`): the data source's date column. The Search data API page asks for
 * explicit binding only for date buckets ("when there are several date columns, users can bind date bucket
 * tokens to a specific column … this binding … must be made explicit", search-data-api.adoc §Date Bucket);
 * the keyword reference writes the date keyword after the measure (`visitors last 7 days`, last_n_days.adoc).
 * With one date column that is the one; with several the service's UI asks the user, the API has no such
 * step: the first date column in the data source's column order is taken, and `several` is true so that
 * the language service can warn. Undefined `column` when the data source has no date column.
 */
export function dataSourceDateColumn<T extends { dataType: ColumnDataType }>(columns: readonly T[]): { column: T | undefined; several: boolean } {
  let first: T | undefined;
  let count = 0;
  for (const c of columns) {
    if (!CALENDAR_TYPES.has(c.dataType)) continue;
    count++;
    first ??= c;
  }
  return { column: first, several: count > 1 };
}

/**
 * The location columns of a data source: its numeric columns named `latitude` and `longitude` (any case),
 * or undefined. The location keywords need them ("you can only use the near and farther than keywords on
 * data sources that have latitude and longitude data", docs.thoughtspot.com search-proximity); the service
 * reads them from its geo configuration, which the API does not show, so TSQ and the emulator go by name.
 */
export function locationColumnsOf<T extends { name: string; dataType: ColumnDataType }>(columns: readonly T[]): { latitude: T; longitude: T } | undefined {
  const find = (name: string): T | undefined => columns.find((c) => c.name.toLowerCase() === name && NUMERIC_TYPES.has(c.dataType));
  const latitude = find('latitude');
  const longitude = find('longitude');
  return latitude && longitude ? { latitude, longitude } : undefined;
}

// ---- the catalogue ---------------------------------------------------------------------------------------

/** The reference pages the catalogue cites: thoughtspot/thoughtspot-docs `cloud/modules/ROOT/partials/keywords/<page>` unless the name has a folder. */
const LIST_PAGE: Record<string, string> = {
  '2.1': 'list-general.adoc', '2.2': 'list-number.adoc', '2.3': 'list-comparative.adoc', '2.4': 'list-text.adoc', '2.5': 'list-date.adoc',
  '2.6': 'list-time.adoc', '2.7': 'list-period.adoc', '2.8': 'in.adoc', '2.9': 'list-location.adoc',
};

/**
 * The public documentation site where the thoughtspot/thoughtspot-docs pages are published: a file
 * `<edition>/modules/ROOT/pages/<name>.adoc` is the page `<site><edition>/latest/<name>`. Declared once:
 * every link to a keyword's reference page (`keywordReferenceUrl`) is built from it.
 */
export const THOUGHTSPOT_DOCS_URL = 'https://docs.thoughtspot.com/';

/** The published page that includes the keyword partials (`<edition>/modules/ROOT/partials/keywords/*.adoc`): the Keyword reference. */
const KEYWORD_REFERENCE_PAGE = 'keywords';

/**
 * The public URL of a keyword's reference `page` (as in `KeywordInfo.page`): a page of `pages/` is
 * published under its own name; a keyword partial (a bare file name, or a path under
 * `partials/keywords/`) is a section of the edition's Keyword reference page.
 * @example keywordReferenceUrl('top_n.adoc') === 'https://docs.thoughtspot.com/cloud/latest/keywords'
 * @example keywordReferenceUrl('cloud/modules/ROOT/pages/search-growth.adoc') === 'https://docs.thoughtspot.com/cloud/latest/search-growth'
 */
export function keywordReferenceUrl(page: string): string {
  const m = /^(cloud|software)\/modules\/ROOT\/(pages|partials)\/(.+)\.adoc$/.exec(page);
  const edition = m?.[1] ?? 'cloud';
  const name = m && m[2] === 'pages' ? m[3]! : KEYWORD_REFERENCE_PAGE;
  return `${THOUGHTSPOT_DOCS_URL}${edition}/latest/${name}`;
}

/** The growth page (docs.thoughtspot.com cloud/latest/search-growth), which lists the period-over-period keywords. */
const GROWTH_PAGE = 'cloud/modules/ROOT/pages/search-growth.adoc';

/** Whether the local emulator executes a keyword (`runs`) or answers 400 naming it (`unsupported`, with the language service's `tsq.notInEmulator`). */
export type EmulatorSupport = 'runs' | 'unsupported';

/**
 * Category of a keyword, following the sections of the keyword reference (docs/service-notes.md §2.1–2.9):
 * - `general`: top/bottom/best, sort, by, for each, ranked by, ascending/descending (2.1)
 * - `aggregation`: sum, average, count, … (2.2)
 * - `filter`: `for` (2.2)
 * - `comparison`: `between … and`, `or`, `vs`, `all` (also spelled `everything`) and the symbols `=`, `!=`, `<`, … (2.3)
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
  /** One line saying what it does, where it stands and what it binds to. */
  meaning: string;
  /** An example query in the API syntax (columns bracketed, values quoted); a test runs every one through `tsq check` and the emulator. */
  example: string;
  /** Other spellings the lexer accepts for the same keyword (plurals, `begins_with`, `versus`). */
  aliases?: string[];
  /** Field notes section the keyword comes from (e.g. `2.5`). */
  section: string;
  /** The reference page of the keyword: a file of thoughtspot/thoughtspot-docs `cloud/modules/ROOT/partials/keywords/`, or the path of another file of that repository. */
  page: string;
  /**
   * A documented phrase of several keywords (`month to date for each quarter`): completion, hover and the
   * language reference list it whole, while the lexer reads its words as the keywords they are (it is not
   * in `WORD_KEYWORD_SPELLINGS`).
   */
  phrase?: boolean;
  /** Further documented examples, each with its page (an alias's own page: `everything.adoc`); they run as tests like `example`. */
  examples?: readonly DocumentedExample[];
  /** Whether the local emulator executes it. */
  emulator: EmulatorSupport;
  /** The demo data source `example` is written for when it is not `flights` (the location keywords need `airports`' latitude/longitude). */
  dataSource?: string;
}

/** A documented example query in the API syntax and the thoughtspot/thoughtspot-docs file it comes from. */
export interface DocumentedExample {
  example: string;
  page: string;
}

/** What `k` takes besides the common fields. */
interface Extra {
  aliases?: string[];
  page?: string;
  examples?: DocumentedExample[];
  phrase?: boolean;
  emulator?: EmulatorSupport;
  dataSource?: string;
}

const k = (name: string, category: KeywordCategory, section: string, meaning: string, example: string, extra: string[] | Extra = {}): KeywordInfo => {
  const x: Extra = Array.isArray(extra) ? { aliases: extra } : extra;
  const info: KeywordInfo = { name, category, meaning, example, section, page: x.page ?? LIST_PAGE[section]!, emulator: x.emulator ?? 'runs' };
  if (x.aliases) info.aliases = x.aliases;
  if (x.examples) info.examples = x.examples;
  if (x.phrase) info.phrase = true;
  if (x.dataSource) info.dataSource = x.dataSource;
  return info;
};

/** The catalogue entries of a record of one category, in the order written. */
const catalogueOf = (entries: Record<string, Entry>, category: KeywordCategory): KeywordInfo[] => Object.entries(entries).map(([name, e]) => k(name, category, ...e));

/** The meaning of a period-over-period keyword, from PERIOD_OVER_PERIOD: what it compares and the buckets it follows. */
const popMeaning = (keyword: PeriodOverPeriod): string => {
  const { period, buckets } = PERIOD_OVER_PERIOD[keyword];
  return `Compares each period with the same period of the previous ${period} (after growth of … by … ${orList(buckets)}).`;
};

/** Every keyword of docs/service-notes.md section 2, with its meaning and an example. Names are unique. */
export const KEYWORDS: readonly KeywordInfo[] = [
  // 2.1 General
  k('top', 'general', '2.1', 'The top N rows of the sorted result (N defaults to 10); with several measures it ranks by the first. best is the same keyword.', "[origin] [delay] top 10", { aliases: ['best'], page: 'top_n.adoc' }),
  k('bottom', 'general', '2.1', 'The bottom N rows of the sorted result (N defaults to 10).', "[origin] [delay] bottom 5", { page: 'bottom_n.adoc' }),
  k('ranked by', 'general', '2.1', 'Ranks the top or bottom N by the given column; only valid together with top or bottom.', "top 10 [origin] [delay] [distance] ranked by [distance]", { page: 'top_n_ranked_by.adoc' }),
  k('sort by', 'general', '2.1', 'Sorts the result by a column, optionally ascending or descending.', "[origin] [delay] sort by [delay] descending", { page: 'sort_by.adoc' }),
  k('ascending', 'general', '2.1', 'Sort direction after sort by: smallest first.', "[origin] [delay] sort by [delay] ascending"),
  k('descending', 'general', '2.1', 'Sort direction after sort by: largest first.', "[origin] [delay] sort by [delay] descending"),
  k('by', 'general', '2.1', 'Groups by the following column (a measure after by is treated as an attribute); by <unit> (by week, by month) groups the data source\'s date column by that unit.', "[delay] by [origin]", { page: 'by.adoc' }),
  k('for each', 'general', '2.1', 'Grouping scope for top/bottom and aggregations, or for a relative date (last 2 days for each month).', "[origin] by [delay] for each [destination] bottom"),
  k('or', 'comparison', '2.4', 'Joins alternatives after similar to.', "[origin] similar to 'S%' or 'P%'"),
  // 2.2 Number (aggregations) and for
  ...catalogueOf(AGGREGATION_KEYWORDS, 'aggregation'),
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
  k('vs', 'comparison', '2.3', 'Compares sides side by side: the filters right before vs are one side, those right after it another; one answer row group per side.', "[delay] [origin] = 'SEA' vs [origin] = 'PDX'", { page: 'vs.adoc', aliases: ['versus'] }),
  k('all', 'comparison', '2.3', 'Everything, as the other side of a vs phrase (only there); everything is the same keyword.', "[delay] [origin] = 'SEA' vs all", {
    page: 'all.adoc', aliases: ['everything'],
    examples: [{ example: "[delay] [origin] = 'PDX' vs everything", page: 'software/modules/ROOT/partials/keywords/everything.adoc' }],
  }),
  k('{null}', 'constant', '2.3', 'The null value (missing or invalid values), with = or !=.', "[origin] [delay] = {null}"),
  k('{empty}', 'constant', '2.3', 'The empty value (empty or whitespace-only strings), with = or !=.', "[delay] [origin] != {empty}"),
  // 2.4 Text
  ...catalogueOf(TEXT_OPERATOR_KEYWORDS, 'text'),
  // 2.5 Date
  k('after', 'date', '2.5', 'Dates after the value.', "[delay] [date] after '2001-01-31'"),
  k('before', 'date', '2.5', 'Dates before the value.', "[delay] [date] before '2001-03-01'"),
  k('today', 'date', '2.5', 'Today; after a measure it filters the data source\'s date column (sales today by store).', "[delay] today by [origin]"),
  k('yesterday', 'date', '2.5', 'Yesterday.', "[delay] [date] yesterday"),
  k('this', 'date', '2.5', 'The current period: this day/week/month/quarter/year/hour/minute.', "[delay] [date] this month"),
  k('last', 'date', '2.5', 'The previous period (last month) or the last N periods (last 7 days); last N days for each month keeps the last N days of each month. After a measure it filters the data source\'s date column.', "[delay] last 7 days", { page: 'last_n_days.adoc' }),
  k('next', 'date', '2.5', 'The next period (next month) or the next N periods (next 7 days).', "[delay] [date] next 2 weeks"),
  k('ago', 'date', '2.5', 'N periods ago: 2 days ago; after a measure it filters the data source\'s date column.', "[delay] 2 months ago by [origin]"),
  k('week to date', 'date', '2.5', 'From the start of the week to today.', "[delay] [date] week to date"),
  k('month to date', 'date', '2.5', 'From the start of the month to today.', "[delay] [date] month to date", { page: 'month_to_date.adoc' }),
  k('quarter to date', 'date', '2.5', 'From the start of the quarter to today.', "[delay] [date] quarter to date"),
  k('year to date', 'date', '2.5', 'From the start of the year to today.', "[delay] [origin] [date] year to date"),
  // <unit> to date for each <period>: phrases of the keywords above, listed for completion and the reference; the lexer reads their words.
  ...TO_DATE_FOR_EACH.map(({ unit, period, page }) =>
    k(`${unit} to date for each ${period}`, 'date', '2.5', `In every ${period}, the same ${unit}-to-date window as today's (the ${unit}'s days up to today's day, in the ${unit} at today's place in the ${period}); groups nothing by itself (keywords-to-date: FOR EACH period).`,
      `[delay] by [${unit === 'week' ? 'date' : 'origin'}] ${unit} to date for each ${period}`, { page: page ?? `${unit}_to_date_for_each_${period}.adoc`, phrase: true })),
  k('growth of', 'date', '2.5', 'Growth of a measure over a date column: growth of [measure] by [date].', "growth of [delay] by [date] monthly", { page: 'growth_of_by.adoc' }),
  // The period-over-period keywords (PERIOD_OVER_PERIOD; search-growth: growth of <measure> by <date> <bucket> <period-over-period>).
  k('year-over-year', 'date', '2.5', popMeaning('year-over-year'), "growth of [delay] by [date] monthly year-over-year", { page: 'daily_year_over_year.adoc' }),
  k('quarter-over-quarter', 'date', '2.5', popMeaning('quarter-over-quarter'), "growth of [delay] by [date] monthly quarter-over-quarter", { page: GROWTH_PAGE }),
  // the page's own example: growth of sales by date daily month-over-month
  k('month-over-month', 'date', '2.5', popMeaning('month-over-month'), "growth of [delay] by [date] daily month-over-month", { page: GROWTH_PAGE }),
  k('week-over-week', 'date', '2.5', popMeaning('week-over-week'), "growth of [delay] by [date] daily week-over-week", { page: GROWTH_PAGE }),
  k('day-over-day', 'date', '2.5', popMeaning('day-over-day'), "growth of [delay] by [date] hourly day-over-day", { page: GROWTH_PAGE }),
  k('calendar', 'date', '2.5', 'calendar.name picks a custom calendar; calendar alone uses the Gregorian calendar.', "[delay] [date].monthly calendar", { page: 'calendar.adoc' }),
  k('fiscal', 'date', '2.5', 'Uses the fiscal-offset calendar.', "[delay] [date].monthly fiscal", { page: 'fiscal.adoc' }),
  // 2.5 / 2.6 units
  ...catalogueOf(DATE_UNIT_KEYWORDS, 'dateUnit'),
  // Buckets (docs/service-interface.md §4.3; 2.5, 2.6)
  ...catalogueOf(BUCKET_KEYWORDS, 'bucket'),
  // 2.7 Period (date-part functions) not already buckets
  ...catalogueOf(PERIOD_PART_KEYWORDS, 'period'),
  k('to date', 'period', '2.7', 'Period to date.', "[delay] [date] year to date"),
  // Named days and months (2.5)
  ...DAY_NAMES.map((d) =>
    k(d, 'dateName', '2.5', `Dates falling on a ${d[0]!.toUpperCase()}${d.slice(1)}; after a measure it filters the data source's date column.`, `[delay] [date] ${d}`, { page: `${d}.adoc` })),
  ...MONTH_NAMES.map((m) =>
    k(m, 'dateName', '2.5', `Dates in ${m[0]!.toUpperCase()}${m.slice(1)} (optionally followed by a year: february 2014); after a measure it filters the data source's date column.`, `[delay] ${m} 2001 by [origin]`, { page: `${m}.adoc` })),
  // Named quarters (q1.adoc … q4.adoc: `purchases q1`; the software reference: "The first quarter of the fiscal year"; connections-cust-cal:
  // "date keywords, like this quarter and q3" follow a custom calendar), optionally followed by a year (`q1 2024`).
  ...QUARTER_NAMES.map((q, i) =>
    k(q, 'dateName', '2.5', `Dates in the ${['first', 'second', 'third', 'fourth'][i]} quarter of the year (the fiscal quarter under calendar.fiscal, the custom calendar's under calendar.<name>), optionally followed by a year: ${q} 2001; after a measure it filters the data source's date column.`, `[delay] ${q}`, { page: `${q}.adoc` })),
  // 2.8 In / not in
  k('in', 'in', '2.8', 'Keeps the values that a subsearch in parentheses also returns.', "[origin] in (top 10 [origin] [delay]) [delay]", { page: 'in.adoc' }),
  k('not in', 'in', '2.8', 'Keeps the values that a subsearch in parentheses does not return.', "[origin] not in (top 10 [origin] [delay]) [delay]", { page: 'not_in.adoc' }),
  // 2.9 Location: on a data source with latitude and longitude (search-proximity), the demo's airports
  k('near', 'location', '2.9', "Rows near a place, a value of the column before it: [city] near 'seattle' (less than 10 km from one of its locations unless within says otherwise, search-proximity); needs latitude/longitude data.", "[name] [city] near 'seattle'", { page: 'near.adoc', dataSource: 'airports' }),
  k('within', 'location', '2.9', 'Distance bound after near: within N miles|km|meters.', "[name] [city] near 'seattle' within 50 miles", { page: 'near_within_distance.adoc', dataSource: 'airports' }),
  k('farther than', 'location', '2.9', 'Rows farther than a distance from a place, a value of the column before it.', "[state] count [iata] [city] farther than 80 km from 'seattle'", { page: 'farther_than_distance_from.adoc', dataSource: 'airports' }),
  k('from', 'location', '2.9', 'The place after farther than N units.', "[state] count [iata] [city] farther than 80 km from 'seattle'", { page: 'farther_than_distance_from.adoc', dataSource: 'airports' }),
  k('miles', 'location', '2.9', 'Distance unit (1 mile = 1609.344 m).', "[name] [city] near 'seattle' within 50 miles", { dataSource: 'airports' }),
  k('km', 'location', '2.9', 'Distance unit.', "[name] [city] near 'seattle' within 50 km", { dataSource: 'airports' }),
  k('meters', 'location', '2.9', 'Distance unit.', "[name] [city] near 'seattle' within 5000 meters", { dataSource: 'airports' }),
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

/** `DATE_BUCKETS` by name (`findDateBucket`). */
const BUCKET_BY_NAME = new Map<string, DateBucket>(DATE_BUCKETS.map((b) => [b, b]));

/** True when `name` (any case) is one of the date buckets; returns the canonical bucket or null. */
export function findDateBucket(name: string): DateBucket | null {
  // a name already in canonical form (the parser's common case) is answered without making strings
  const direct = BUCKET_BY_NAME.get(name);
  if (direct !== undefined) return direct;
  return BUCKET_BY_NAME.get(name.trim().toLowerCase().replace(/\s+/g, ' ')) ?? null;
}

/**
 * Every spelling the lexer recognises as a keyword made of words (canonical names and aliases, lower-case,
 * words separated by one space), phrases (`phrase`) aside. Symbol keywords (`=`, `{null}`) are lexed as operators and constants.
 */
export const WORD_KEYWORD_SPELLINGS: readonly string[] = [...byName.keys()].filter((s) => /^[a-z]/.test(s) && !byName.get(s)!.phrase);
