/**
 * The formula language's function catalogue, declared once: every function and operator of ThoughtSpot's
 * formula reference (https://docs.thoughtspot.com/cloud/latest/formula-reference and the pages it
 * includes: operators, aggregate, conversion, date, mixed, number, text, passthrough), each with its
 * signature, whether it aggregates, what it means, a documented example and its anchor on the page.
 * The parser, the checker, completion, hover and the emulator's SQL all read it from here.
 *
 * Pure data and its derived views: no I/O.
 */

/** The page every entry's anchor belongs to. */
export const FORMULA_REFERENCE_PAGE = 'https://docs.thoughtspot.com/cloud/latest/formula-reference';

/**
 * The value types of the formula language: `int` is a `number` (an int argument takes a number whose
 * value is whole, unchecked); `date` a day, `datetime` a day and time, `time` a time of day; `list` a
 * `{…}` list or `query_groups()`/`query_filters()`; `order` a text `'asc'`/`'desc'`; `calendar` `fiscal`
 * or a custom calendar's name; `any` unknown (a formula column whose type nothing tells), never wrong.
 */
export type FormulaType = 'number' | 'int' | 'text' | 'bool' | 'date' | 'datetime' | 'time' | 'list' | 'order' | 'calendar' | 'any';

/** Where a function stands on the reference page. */
export type FormulaCategory = 'operator' | 'aggregate' | 'conversion' | 'date' | 'mixed' | 'number' | 'text' | 'passthrough';

/**
 * What a function does with rows: `aggregate` one value per group of the search (sum, count, …, and the
 * passthrough `*_aggregate_op`); `window` a value per group computed over the others (cumulative_*,
 * moving_*, rank, rank_percentile); `group` a value at the grain its own attributes give (group_*,
 * group_aggregate); none for a row-level function.
 */
export type Aggregation = 'aggregate' | 'window' | 'group';

/**
 * One parameter: its name, the types it takes (a `T` parameter takes any type and the result is that of
 * its argument), whether it may be left out (`optional`) or repeated (`repeat`: one or more, with
 * `optional` none or more), and `needs`: `aggregate` for an argument that must aggregate (the first of
 * rank and group_aggregate), `row` for one that must not (inside sum, count, …).
 */
export interface FormulaParam {
  name: string;
  types: readonly (FormulaType | 'T')[];
  optional?: boolean;
  repeat?: boolean;
  needs?: 'aggregate' | 'row';
}

/** How a function is written: a call `f (a, b)`, an infix `a + b`, a prefix `not a`, or `if … then … else`. */
export type FormulaSyntax = 'call' | 'infix' | 'prefix' | 'conditional';

/** One entry of the catalogue (`FORMULA_FUNCTIONS`). */
export interface FormulaFunction {
  /** The name as written: `sum`, `unique count`, `+`, `if`. */
  name: string;
  category: FormulaCategory;
  syntax: FormulaSyntax;
  /** The signature as the reference would show it, e.g. `sum (measure: number) → number`. */
  signature: string;
  params: readonly FormulaParam[];
  result: FormulaType | 'T';
  aggregation?: Aggregation;
  /** What it returns, in the reference's words. */
  meaning: string;
  /** A documented example. */
  example: string;
  /** Its anchor on FORMULA_REFERENCE_PAGE. */
  anchor: string;
}

/** Type aliases of the signature notation (`date|datetime` written as `moment`, …). */
const ALIASES: Record<string, readonly (FormulaType | 'T')[]> = {
  moment: ['date', 'datetime'],
  instant: ['date', 'datetime', 'time'],
  clock: ['datetime', 'time'],
};

/**
 * Reads a signature of the notation `name(a: number, b?: text, ...c: any, ...d?: any, agg e: T): result`
 * (`?` optional, `...` repeated, `agg`/`row` what the argument must be, `x|y` either type) into params
 * and result. Throws on a malformed signature (a catalogue bug, caught by the unit test at load).
 */
function readSignature(sig: string): { params: FormulaParam[]; result: FormulaType | 'T' } {
  const m = /^\((.*)\):\s*(\w+)$/.exec(sig.trim());
  if (!m) throw new Error(`bad formula signature ${sig}`);
  const params = m[1]!.trim() === '' ? [] : m[1]!.split(',').map((p): FormulaParam => {
    const pm = /^\s*(agg |row )?(\.\.\.)?(\w+)(\?)?:\s*([\w|]+)\s*$/.exec(p);
    if (!pm) throw new Error(`bad formula parameter ${p} in ${sig}`);
    const types = pm[5]!.split('|').flatMap((t) => ALIASES[t] ?? [t as FormulaType | 'T']);
    return { name: pm[3]!, types, ...(pm[4] ? { optional: true } : {}), ...(pm[2] ? { repeat: true } : {}), ...(pm[1] ? { needs: pm[1].trim() === 'agg' ? 'aggregate' : 'row' } : {}) } as FormulaParam;
  });
  return { params, result: m[2] as FormulaType | 'T' };
}

/** [name, signature, meaning, example, anchor?] of one category (anchor: the name, `_` for spaces, by default). */
type Row = readonly [string, string, string, string, string?];

/** The operators of the reference (operators.adoc; number-func.adoc for the arithmetic). */
const OPERATORS: readonly Row[] = [
  ['and', '(a: bool, b: bool): bool', 'Returns true when both conditions are true, otherwise false.', "lastname = 'smith' and state = 'texas'"],
  ['or', '(a: bool, b: bool): bool', 'Returns true when either condition is true, otherwise false.', "state = 'california' or state = 'oregon'"],
  ['not', '(condition: bool): bool', 'Returns true if the condition is false, otherwise false.', "not (state = 'texas')"],
  ['if', '(condition: bool, then: T, else: T): T', 'Conditional operator: `if … then … else …`.', "if (cost > 500) then 'flag' else 'approve'", 'if-then-else'],
  ['ifnull', '(value: T, otherwise: T): T', 'Returns the first value if it is not null, otherwise the second value.', "ifnull (cost, 'unknown')"],
  ['isnull', '(value: any): bool', 'Returns true if the value is null.', 'isnull (phone)'],
  ['in', '(value: any, values: list): bool', 'Returns true if the value matches one of the values of the list.', "state in { 'texas' , 'california' }"],
  ['+', '(a: number, b: number): number', 'Returns the result of adding both numbers.', 'price + shipping', 'add'],
  ['-', '(a: number, b: number): number', 'Returns the result of subtracting the second number from the first.', 'revenue - tax', 'subtract'],
  ['*', '(a: number, b: number): number', 'Returns the result of multiplying both numbers.', 'price * taxrate', 'multiply'],
  ['/', '(a: number, b: number): number', 'Returns the result of dividing the first number by the second.', 'markup / retail price', 'divide'],
  ['^', '(a: number, b: number): number', 'Returns the first number raised to the power of the second.', 'width ^ 2', 'power'],
];

/** The mixed functions (mixed-func.adoc: text and numeric types alike). */
const MIXED: readonly Row[] = [
  ['=', '(a: T, b: T): bool', 'Returns true if the first value is equal to the second value.', "state = 'texas'", 'equal'],
  ['!=', '(a: T, b: T): bool', 'Returns true if the first value is not equal to the second value.', "color != 'red'", 'not_equal'],
  ['<', '(a: T, b: T): bool', 'Returns true if the first value is less than the second value.', 'revenue < 10', 'less'],
  ['<=', '(a: T, b: T): bool', 'Returns true if the first value is less than or equal to the second value.', 'revenue <= 1000000', 'less-or-equal'],
  ['>', '(a: T, b: T): bool', 'Returns true if the first value is greater than the second value.', 'revenue > 10', 'greater'],
  ['>=', '(a: T, b: T): bool', 'Returns true if the first value is greater than or equal to the second value.', 'revenue >= 10', 'greater_or_equal'],
  ['greatest', '(a: T, b: T): T', 'Returns the larger of the values.', 'greatest (q1 revenue, q2 revenue)'],
  ['least', '(a: T, b: T): T', 'Returns the smaller of the values.', 'least (q1 revenue, q2 revenue)'],
];

/** The aggregate functions (aggregate.adoc), with `query_groups` and `query_filters` (formulas-aggregation-flexible). */
const AGGREGATES: readonly (readonly [Aggregation | '', ...Row])[] = [
  ['aggregate', 'average', '(row measure: number): number', 'Returns the average of all the values of a column.', 'average (revenue)'],
  ['aggregate', 'average_if', '(row condition: bool, row measure: number): number', 'Returns the average of the values of the rows that meet a criteria.', "average_if (city = 'San Francisco', revenue)"],
  ['aggregate', 'count', '(row value: any): int', 'Returns the number of rows in the table containing the column.', 'count (product)'],
  ['aggregate', 'count_if', '(row condition: bool, row value: any): int', 'Returns the number of rows that meet a criteria.', "count_if (region = 'west', region)"],
  ['window', 'cumulative_average', '(measure: number, ...attributes: any): number', 'Returns the average of the measure, accumulated by the attributes in the order specified.', 'cumulative_average (revenue, order date, state)'],
  ['window', 'cumulative_max', '(measure: T, ...attributes: any): T', 'Returns the maximum of the measure, accumulated by the attributes in the order specified.', 'cumulative_max (revenue, state)'],
  ['window', 'cumulative_min', '(measure: T, ...attributes: any): T', 'Returns the minimum of the measure, accumulated by the attributes in the order specified.', 'cumulative_min (revenue, campaign)'],
  ['window', 'cumulative_sum', '(measure: number, ...attributes: any): number', 'Returns the sum of the measure, accumulated by the attributes in the order specified.', 'cumulative_sum (revenue, order date)'],
  ['group', 'group_aggregate', '(agg aggregation: T, groupings: list, filters: list): T', 'Aggregates at the grain of its groupings and filters instead of the search\'s: lists in `{ }`, or `query_groups()` / `query_filters()` with `+` / `-` columns.', 'group_aggregate (sum (revenue), {ship mode, date}, {})'],
  ['group', 'group_average', '(row measure: number, ...attributes: any): number', 'Returns the average of the measure grouped by the attributes.', 'group_average (revenue, customer region, state)'],
  ['group', 'group_count', '(row measure: any, ...attributes: any): int', 'Returns the count of the measure grouped by the attributes.', 'group_count (revenue, customer region)'],
  ['group', 'group_max', '(row measure: T, ...attributes: any): T', 'Returns the maximum of the measure grouped by the attributes.', 'group_max (revenue, customer region)'],
  ['group', 'group_min', '(row measure: T, ...attributes: any): T', 'Returns the minimum of the measure grouped by the attributes.', 'group_min (revenue, customer region)'],
  ['group', 'group_stddev', '(row measure: number, ...attributes: any): number', 'Returns the standard deviation of the measure grouped by the attributes.', 'group_stddev (revenue, customer region)'],
  ['group', 'group_sum', '(row measure: number, ...attributes: any): number', 'Returns the sum of the measure grouped by the attributes.', 'group_sum (revenue, customer region)'],
  ['group', 'group_unique_count', '(row measure: any, ...attributes: any): int', 'Returns the unique count of the measure grouped by the attributes.', 'group_unique_count (product, supplier)'],
  ['group', 'group_variance', '(row measure: number, ...attributes: any): number', 'Returns the variance of the measure grouped by the attributes.', 'group_variance (revenue, customer region)'],
  ['aggregate', 'max', '(row value: T): T', 'Returns the maximum value of a column.', 'max (sales)'],
  ['aggregate', 'max_if', '(row condition: bool, row value: T): T', 'Returns the maximum value among the rows that meet a criteria.', 'max_if ((revenue > 10), customer region)'],
  ['aggregate', 'median', '(row measure: number): number', 'Returns the value of the measure from the row that has the 50th percentile value.', 'median (sales)'],
  ['aggregate', 'min', '(row value: T): T', 'Returns the minimum value of a column.', 'min (revenue)'],
  ['aggregate', 'min_if', '(row condition: bool, row value: T): T', 'Returns the minimum value among the rows that meet a criteria.', 'min_if ((revenue < 10), customer region)', 'min-if'],
  ['window', 'moving_average', '(measure: number, num1: int, num2: int, ...attributes: any): number', 'Returns the average of the measure over the window current - num1 … current + num2 (both ends included), ordered by the attributes.', 'moving_average (revenue, 2, 1, customer region)'],
  ['window', 'moving_max', '(measure: T, num1: int, num2: int, ...attributes: any): T', 'Returns the maximum of the measure over the window current - num1 … current + num2, ordered by the attributes.', 'moving_max (complaints, 1, 2, store name)'],
  ['window', 'moving_min', '(measure: T, num1: int, num2: int, ...attributes: any): T', 'Returns the minimum of the measure over the window current - num1 … current + num2, ordered by the attributes.', 'moving_min (defects, 3, 1, product)'],
  ['window', 'moving_sum', '(measure: number, num1: int, num2: int, ...attributes: any): number', 'Returns the sum of the measure over the window current - num1 … current + num2, ordered by the attributes.', 'moving_sum (revenue, 1, 1, order date)'],
  ['aggregate', 'percentile', '(row measure: number, n: number, order: order): number', 'Returns the value of the measure from the row whose rank_percentile is at most N (else the first row above N).', "percentile (sales, 99, 'asc')"],
  ['window', 'rank', '(agg value: any, order: order): int', 'Returns the rank of the current row; identical values get an identical rank. The first argument is an aggregate.', "rank (sum (revenue), 'asc')"],
  ['window', 'rank_percentile', '(agg value: any, order: order): number', 'Returns the percentile rank of the current row; identical values get an identical percentile rank.', "rank_percentile (sum (revenue), 'desc')"],
  ['aggregate', 'stddev', '(row measure: number): number', 'Returns the standard deviation of all values of a column.', 'stddev (revenue)'],
  ['aggregate', 'stddev_if', '(row condition: bool, row measure: number): number', 'Returns the standard deviation of the values that meet a criteria.', 'stddev_if ((revenue > 10), (revenue / 10.0))'],
  ['aggregate', 'sum', '(row measure: number): number', 'Returns the sum of all the values of a column.', 'sum (revenue)'],
  ['aggregate', 'sum_if', '(row condition: bool, row measure: number): number', 'Returns the sum of the values that meet a criteria.', "sum_if (region = 'west', revenue)"],
  ['aggregate', 'unique count', '(row value: any): int', 'Returns the number of unique values of a column.', 'unique count (customer)', 'unique_count'],
  ['aggregate', 'unique_count_if', '(row condition: bool, row value: any): int', 'Returns the number of unique values of a column among the rows that meet a criteria.', 'unique_count_if ((revenue > 10), order date)'],
  ['aggregate', 'variance', '(row measure: number): number', 'Returns the variance of all the values of a column.', 'variance (revenue)'],
  ['aggregate', 'variance_if', '(row condition: bool, row measure: number): number', 'Returns the variance of the values that meet a criteria.', 'variance_if ((revenue > 10), (revenue / 10.0))'],
  ['', 'query_groups', '(): list', 'The columns the search groups by, for group_aggregate (add or take away columns with `+ {…}` / `- {…}`).', 'group_aggregate (sum (revenue), query_groups() + {date}, query_filters())', 'group_aggregate'],
  ['', 'query_filters', '(): list', 'The filters of the search, for group_aggregate.', 'group_aggregate (sum (revenue), query_groups(), query_filters())', 'group_aggregate'],
];

/** The conversion functions (conversion-func.adoc; no date conversion but to_date). */
const CONVERSIONS: readonly Row[] = [
  ['to_bool', '(value: any): bool', 'Returns the input as a boolean (true or false).', 'to_bool (married)'],
  ['to_date', '(value: int|text, format: text): date', 'Reads a date written as an integer or text with a strptime format (month, day and year only).', "to_date (date_sold, '%Y-%m-%d')"],
  ['to_double', '(value: any): number', 'Returns the input as a double.', "to_double ('3.14') = 3.14"],
  ['to_integer', '(value: any): int', 'Returns the input as an integer.', "to_integer ('45') + 1 = 46"],
  ['to_string', '(value: any, format?: text): text', 'Returns the input as text; a date with the strftime format of the second argument.', "to_string (date, '%m/%d/%y')"],
];

/** The date functions (date-func.adoc). `calendar` is `fiscal` or a custom calendar's name. */
const DATES: readonly Row[] = [
  ['add_days', '(date: T, days: int): T', 'Returns the given date plus the number of days.', 'add_days (invoiced, 30)'],
  ['add_minutes', '(date: T, minutes: int): T', 'Returns the given date, datetime or time plus the number of minutes.', 'add_minutes (invoiced, 30)'],
  ['add_months', '(date: T, months: int): T', 'Returns the given date plus the number of months.', 'add_months (invoiced_date, 5)'],
  ['add_seconds', '(date: T, seconds: int): T', 'Returns the given date, datetime or time plus the number of seconds.', 'add_seconds (invoiced_date, 5)'],
  ['add_weeks', '(date: T, weeks: int): T', 'Returns the given date plus the number of weeks.', 'add_weeks (invoiced_date, 2)'],
  ['add_years', '(date: T, years: int): T', 'Returns the given date plus the number of years.', 'add_years (invoiced_date, 5)'],
  ['date', '(date: moment): date', 'Returns the date portion of a given date.', 'date (home visit)'],
  ['day', '(date: moment, calendar?: calendar): int', 'Returns the day of the month (1-31).', 'day (01/15/2014) = 15'],
  ['day_number_of_quarter', '(date: moment, calendar?: calendar): int', 'Returns the number of the day in its quarter.', 'day_number_of_quarter (01/30/2015) = 30'],
  ['day_number_of_week', '(date: moment, calendar?: calendar): int', 'Returns the number (1-7) of the day in its week: Monday is 1, Sunday 7.', 'day_number_of_week (01/15/2014) = 3'],
  ['day_number_of_year', '(date: moment, calendar?: calendar): int', 'Returns the number (1-366) of the day in its year.', 'day_number_of_year (01/30/2015) = 30'],
  ['day_of_week', '(date: moment, calendar?: calendar): text', 'Returns the day of the week of the given date.', 'day_of_week (01/30/2015) = Friday'],
  ['diff_days', '(a: moment, b: moment): int', 'Subtracts the second date from the first, in days.', 'diff_days (01/15/2014, 01/17/2014) = -2'],
  ['diff_hours', '(a: moment, b: moment): int', 'Subtracts the hour of the second date from that of the first, in hours.', 'diff_hours (clicked, submitted)'],
  ['diff_minutes', '(a: moment, b: moment): int', 'Subtracts the minute of the second date from that of the first, in minutes.', 'diff_minutes (clicked, submitted)'],
  ['diff_months', '(a: moment, b: moment, calendar?: calendar): int', 'Subtracts the month of the second date from that of the first, in months.', 'diff_months (12/25/2013, 01/01/2014) = -1'],
  ['diff_quarters', '(a: moment, b: moment, calendar?: calendar): int', 'Subtracts the quarter of the second date from that of the first, in quarters.', 'diff_quarters (12/31/2013, 01/01/2014) = -1'],
  ['diff_time', '(a: moment, b: moment): int', 'Subtracts the second date from the first, in seconds.', 'diff_time (01/30/2014, 01/31/2014) = -86400'],
  ['diff_weeks', '(a: moment, b: moment, calendar?: calendar): int', 'Subtracts the week of the second date from that of the first, in weeks.', 'diff_weeks (01/05/2014, 01/06/2014) = -1'],
  ['diff_years', '(a: moment, b: moment, calendar?: calendar): int', 'Subtracts the year of the second date from that of the first, in years.', 'diff_years (12/25/2013, 01/01/2014) = -1'],
  ['hour_of_day', '(date: clock): int', 'Returns the hour of the day of the given date.', 'hour_of_day (received)'],
  ['is_weekend', '(date: moment, calendar?: calendar): bool', 'Returns true if the given date falls on a Saturday or Sunday.', 'is_weekend (01/31/2015) = true'],
  ['month', '(date: moment, calendar?: calendar): text', 'Returns the month of the given date.', 'month (01/15/2014) = January'],
  ['month_number', '(date: moment, calendar?: calendar): int', 'Returns the number (1-12) of the month of the given date.', 'month_number (09/20/2014) = 9'],
  ['month_number_of_quarter', '(date: moment, calendar?: calendar): int', 'Returns the number (1-3) of the month in its quarter.', 'month_number_of_quarter (02/20/2018) = 2'],
  ['now', '(): datetime', 'Returns the current date and time.', 'now ()'],
  ['quarter_number', '(date: moment, calendar?: calendar): int', 'Returns the number (1-4) of the quarter of the given date.', 'quarter_number (04/14/2014) = 2'],
  ['start_of_month', '(date: moment, calendar?: calendar): date', 'Returns the first day of the month of the given date.', 'start_of_month (shipped)'],
  ['start_of_quarter', '(date: moment, calendar?: calendar): date', 'Returns the first day of the quarter of the given date.', 'start_of_quarter (sold)'],
  ['start_of_week', '(date: moment, calendar?: calendar): date', 'Returns the first day (Monday) of the week of the given date.', 'start_of_week (01/31/2020) = 01/27/2020'],
  ['start_of_year', '(date: moment, calendar?: calendar): date', 'Returns the first day of the year of the given date.', 'start_of_year (joined)'],
  ['start_of_hour', '(time: clock): T', 'Returns the time to the start of its hour.', 'start_of_hour (received)'],
  ['start_of_min', '(time: clock): T', 'Returns the time to the start of its minute.', 'start_of_min (received)'],
  ['time', '(date: clock): time', 'Returns the time portion of a given date.', 'time (call began)'],
  ['today', '(): date', 'Returns the current date.', 'today ()'],
  ['week_number_of_month', '(date: moment, calendar?: calendar): int', 'Returns the number of the week of the given date in its month.', 'week_number_of_month (03/23/2017) = 3'],
  ['week_number_of_quarter', '(date: moment, calendar?: calendar): int', 'Returns the number of the week of the given date in its quarter.', 'week_number_of_quarter (01/31/2020) = 5'],
  ['week_number_of_year', '(date: moment, calendar?: calendar): int', 'Returns the number of the week of the given date in its year.', 'week_number_of_year (01/17/2014) = 3'],
  ['year', '(date: moment, calendar?: calendar): int', 'Returns the year of the given date as an integer.', 'year (01/15/2014) = 2014'],
  ['year_name', '(date: moment, calendar?: calendar): text', 'Returns the year of the given date as text.', 'year_name (date ordered)'],
];

/** The number functions (number-func.adoc); the arithmetic operators are in OPERATORS. */
const NUMBERS: readonly Row[] = [
  ['abs', '(value: number): number', 'Returns the absolute value.', 'abs (-10) = 10'],
  ['acos', '(value: number): number', 'Returns the inverse cosine in degrees.', 'acos (0.5) = 60'],
  ['asin', '(value: number): number', 'Returns the inverse sine in degrees.', 'asin (0.5) = 30'],
  ['atan', '(value: number): number', 'Returns the inverse tangent in degrees.', 'atan (1) = 45'],
  ['atan2', '(y: number, x: number): number', 'Returns the inverse tangent of y / x in degrees.', 'atan2 (10, 10) = 45'],
  ['cbrt', '(value: number): number', 'Returns the cube root of a number.', 'cbrt (27) = 3'],
  ['ceil', '(value: number): int', 'Returns the smallest integer not below the number.', 'ceil (5.9) = 6'],
  ['cos', '(degrees: number): number', 'Returns the cosine of an angle in degrees.', 'cos (63) = 0.45'],
  ['cube', '(value: number): number', 'Returns the cube of a number.', 'cube (3) = 27'],
  ['exp', '(value: number): number', "Returns Euler's number raised to a power.", 'exp (2) = 7.38905609893'],
  ['exp2', '(value: number): number', 'Returns 2 raised to a power.', 'exp2 (3) = 8'],
  ['floor', '(value: number): int', 'Returns the largest integer not above the number.', 'floor (5.1) = 5'],
  ['ln', '(value: number): number', 'Returns the natural logarithm.', 'ln (7.38905609893) = 2'],
  ['log10', '(value: number): number', 'Returns the logarithm with base 10.', 'log10 (100) = 2'],
  ['log2', '(value: number): number', 'Returns the logarithm with base 2.', 'log2 (32) = 5'],
  ['mod', '(a: number, b: number): number', 'Returns the remainder of the first number divided by the second.', 'mod (8, 3) = 2'],
  ['pow', '(a: number, b: number): number', 'Returns the first number raised to the power of the second.', 'pow (5, 2) = 25'],
  ['random', '(): number', 'Returns a random number between 0 and 1.', 'random ()'],
  ['round', '(value: number, to?: number): number', 'Returns the number rounded to a multiple of the second (default 1).', 'round (35.65, 10) = 40'],
  ['safe_divide', '(a: number, b: number): number', 'Returns the first number divided by the second, or 0 when the second is 0.', 'safe_divide (12, 0) = 0'],
  ['sign', '(value: number): int', 'Returns +1 for a number above zero, -1 below, 0 for zero.', 'sign (-250) = -1'],
  ['sin', '(degrees: number): number', 'Returns the sine of an angle in degrees.', 'sin (35) = 0.57'],
  ['spherical_distance', '(lat1: number, lon1: number, lat2: number, lon2: number): number', 'Returns the distance in km between two points on Earth.', 'spherical_distance (start_latitude, start_longitude, end_latitude, end_longitude)'],
  ['sq', '(value: number): number', 'Returns the square of a number.', 'sq (9) = 81'],
  ['sqrt', '(value: number): number', 'Returns the square root.', 'sqrt (9) = 3'],
  ['tan', '(degrees: number): number', 'Returns the tangent of an angle in degrees.', 'tan (35) = 0.7'],
];

/** The text functions (text-func.adoc). */
const TEXTS: readonly Row[] = [
  ['concat', '(a: any, ...more: any): text', 'Returns two or more values concatenated as text.', "concat (title, ' ', first_name, ' ', last_name)"],
  ['contains', '(text: text, part: text): bool', 'Returns true if the first string contains the second.', "contains ('broomstick', 'room') = true"],
  ['edit_distance', '(a: text, b: text): int', 'Returns the edit distance of two strings (under 1023 characters).', "edit_distance ('attorney', 'atty') = 4"],
  ['edit_distance_with_cap', '(a: text, b: text, cap: int): int', 'Returns the edit distance of two strings, or the cap plus 1 when it is above the cap.', "edit_distance_with_cap ('pokemon go', 'minecraft pixelmon', 3) = 4"],
  ['left', '(text: text, length: int): text', 'Returns the first characters of the string.', "left ('persnickety', 4) = 'pers'"],
  ['right', '(text: text, length: int): text', 'Returns the last characters of the string.', "right ('persnickety', 4) = 'kety'"],
  ['similar_to', '(document: text, search: text): bool', 'Returns true if the relevance score of the search string in the document is at least 20.', "similar_to ('hello world', 'hello swirl') = true"],
  ['similarity', '(document: text, search: text): number', 'Returns the relevance score (0-100) of the search string in the document.', "similarity ('where is the burning man concert', 'burning man') = 46"],
  ['sounds_like', '(a: text, b: text): bool', 'Returns true if the two strings sound alike.', "sounds_like ('read', 'red') = true"],
  ['spells_like', '(a: text, b: text): bool', 'Returns true if the two strings are spelled alike.', "spells_like ('thouhgtspot', 'thoughtspot') = true"],
  ['strlen', '(text: text): int', 'Returns the length of the text.', "strlen ('smith') = 5"],
  ['strpos', '(text: text, part: text): int', 'Returns the position (from 0) of the first occurrence of the second string in the first, or -1.', "strpos ('haystack_with_needles', 'needle') = 14"],
  ['substr', '(text: text, start: int, length: int): text', 'Returns the part of the string from the position (from 0) of the given length.', "substr ('persnickety', 3, 7) = 'snicket'"],
];

/** The passthrough functions (passthrough-func.adoc): a SQL text with `{0}`, `{1}` … and its values. */
const PASSTHROUGH: readonly (readonly [string, FormulaType, boolean, string])[] = [
  ['sql_bool_aggregate_op', 'bool', true, 'sql_bool_aggregate_op ("booland_agg ({0})", is_delivered)'],
  ['sql_bool_op', 'bool', false, 'sql_bool_op ("is_decimal ({0})", itemCount)'],
  ['sql_date_aggregate_op', 'date', true, 'sql_date_aggregate_op ("max ({0})", orderdate)'],
  ['sql_date_op', 'date', false, 'sql_date_op ("previous_day ({0})", ship_date)'],
  ['sql_date_time_aggregate_op', 'datetime', true, 'sql_date_time_aggregate_op ("max ({0})", delivery_time)'],
  ['sql_date_time_op', 'datetime', false, "sql_date_time_op (\"timestamp_sub ({0}, {1})\", sale_time, 'INTERVAL 30 MINUTE')"],
  ['sql_double_aggregate_op', 'number', true, 'sql_double_aggregate_op ("approx_percentile ({0}, {1})", unrealised_gain, 0.99)'],
  ['sql_double_op', 'number', false, 'sql_double_op ("radians ({0})", 180) = 3.141592654'],
  ['sql_int_aggregate_op', 'int', true, 'sql_int_aggregate_op ("approx_count_distinct ({0})", sale_volume)'],
  ['sql_int_op', 'int', false, 'sql_int_op ("ceil ({0})", itemCount)'],
  ['sql_string_aggregate_op', 'text', true, 'sql_string_aggregate_op ("min ({0})", username)'],
  ['sql_string_op', 'text', false, 'sql_string_op ("soundex ({0})", "Marks")'],
  ['sql_time_aggregate_op', 'time', true, 'sql_time_aggregate_op ("max (time ({0}))", delivery_time)'],
  ['sql_time_op', 'time', false, 'sql_time_op ("time_from_parts ({0}, {1}, {2})", 12, 30, 20)'],
];

/** How the operators of OPERATORS and MIXED are written. */
const SYNTAX: Record<string, FormulaSyntax> = { and: 'infix', or: 'infix', in: 'infix', not: 'prefix', if: 'conditional', '+': 'infix', '-': 'infix', '*': 'infix', '/': 'infix', '^': 'infix', '=': 'infix', '!=': 'infix', '<': 'infix', '<=': 'infix', '>': 'infix', '>=': 'infix' };

/** One catalogue entry from its row. */
function entry(category: FormulaCategory, row: Row, aggregation?: Aggregation): FormulaFunction {
  const [name, sig, meaning, example, anchor] = row;
  const { params, result } = readSignature(sig);
  const shown = params.map((p) => `${p.repeat ? '…' : ''}${p.name}${p.optional ? '?' : ''}: ${p.types.join(' | ')}`).join(', ');
  return {
    name, category, syntax: SYNTAX[name] ?? 'call', signature: `${name} (${shown}) → ${result}`, params, result,
    ...(aggregation ? { aggregation } : {}), meaning, example, anchor: anchor ?? name.replace(/ /g, '_'),
  };
}

/**
 * The binding of the infix operators, loosest first (`or` < `and` < comparisons and `in` < `+ -` < `* /` <
 * `^`; docs/service-notes.md §3.6: the reference is silent, read from its examples). `<>` is the
 * reference's other spelling of `!=`.
 */
const PRECEDENCE: Record<string, number> = { or: 0, and: 1, '=': 2, '!=': 2, '<>': 2, '<': 2, '<=': 2, '>': 2, '>=': 2, in: 2, '+': 3, '-': 3, '*': 4, '/': 4, '^': 5 };

/** The infix operators grouped by binding, loosest first: the parser's precedence levels. */
export const INFIX_LEVELS: readonly (readonly string[])[] = Object.entries(PRECEDENCE).reduce<string[][]>((levels, [op, level]) => {
  (levels[level] ??= []).push(op);
  return levels;
}, []);

/** The operators written as words (`and`, `or`, `not`, `in`, `if`): never part of a column or function name. */
export const WORD_OPERATORS: readonly string[] = Object.keys(SYNTAX).filter((op) => /^[a-z]+$/.test(op));

/** Every function and operator of the formula reference, in the reference's order of sections. */
export const FORMULA_FUNCTIONS: readonly FormulaFunction[] = [
  ...OPERATORS.map((r) => entry('operator', r)),
  ...AGGREGATES.map(([agg, ...r]) => entry('aggregate', r, agg || undefined)),
  ...CONVERSIONS.map((r) => entry('conversion', r)),
  ...DATES.map((r) => entry('date', r)),
  ...MIXED.map((r) => entry('mixed', r)),
  ...NUMBERS.map((r) => entry('number', r)),
  ...TEXTS.map((r) => entry('text', r)),
  ...PASSTHROUGH.map(([name, type, agg, example]) => entry('passthrough', [name, `(sql: text, ...values?: any): ${type}`, `Runs the SQL text on the data source, \`{0}\`, \`{1}\` … standing for the values that follow; returns a ${type}${agg ? ' aggregated per group' : ''}.`, example], agg ? 'aggregate' : undefined)),
];

/** The catalogue by lower-case name (`unique count` with its space; `unique_count` is an alias). */
export const FORMULA_FUNCTION_BY_NAME: ReadonlyMap<string, FormulaFunction> = new Map([
  ...FORMULA_FUNCTIONS.map((f) => [f.name, f] as const),
  ['unique_count', FORMULA_FUNCTIONS.find((f) => f.name === 'unique count')!] as const,
]);

/** The functions written as calls (completion lists them; the checker suggests among them). */
export const CALLABLE_FUNCTION_NAMES: readonly string[] = FORMULA_FUNCTIONS.filter((f) => f.syntax === 'call').map((f) => f.name);

/** The link of an entry on the reference page. */
export function functionPage(f: Pick<FormulaFunction, 'anchor'>): string {
  return `${FORMULA_REFERENCE_PAGE}#${f.anchor}`;
}

/** The reference entry of a function as Markdown (hover, completion): signature, meaning, example and page. */
export function functionMarkdown(f: FormulaFunction): string {
  const kind = f.aggregation ? `${f.category}, ${f.aggregation}` : f.category;
  return `**${f.name}** (${kind} function)\n\n\`${f.signature}\`\n\n${f.meaning}\n\nExample: \`${f.example}\`\n\n[${FORMULA_REFERENCE_PAGE}#${f.anchor}](${functionPage(f)})`;
}
