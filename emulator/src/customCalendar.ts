/**
 * Custom calendars (`calendar.<name>` in a query): a table with one row per day that says which week,
 * month, quarter and year of the calendar the day belongs to. Its columns are those of ThoughtSpot's
 * custom calendar file (docs.thoughtspot.com cloud/latest/connections-cust-cal) plus the period bounds.
 * The demo has one, `retail`, a 4-4-5 calendar (see `retailCalendarSelect`).
 *
 * For the compiler: `calendarPeriodStartSql` is the start of a day's calendar week/month/quarter/year, and
 * `calendarNumberSql` reads any of the calendar's columns for a day.
 */
import { quoteIdent } from './engine';
import { FISCAL_CALENDAR_NAME, GREGORIAN_CALENDAR_NAMES, TO_DATE } from '../../common/src/language/keywords';
import type { SeedColumn } from './seed';

/**
 * The columns of a custom calendar table, in order: those of ThoughtSpot's custom calendar file
 * (docs.thoughtspot.com cloud/latest/connections-cust-cal, its example `customer-calendar-eg.csv`: date,
 * day_of_week, month, quarter, year, day_number_of_week, week_number_of_month, week_number_of_quarter,
 * week_number_of_year, is_weekend; `day_of_week`, `month`, `quarter` and `year` are text), plus the period
 * bounds that page names, `start_of_<period>_epoch` and `end_of_<period>_epoch`, where an end is the next
 * period's start (kept as DATE here).
 */
export const CUSTOM_CALENDAR_COLUMNS: readonly SeedColumn[] = [
  { name: 'date', dataType: 'DATE', description: 'The day' },
  { name: 'day_of_week', dataType: 'VARCHAR', description: 'Name of the day (Sunday …)' },
  { name: 'month', dataType: 'VARCHAR', description: 'Name of the calendar month the day is in' },
  { name: 'quarter', dataType: 'VARCHAR', description: 'Name of the calendar quarter (Q1 … Q4)' },
  { name: 'year', dataType: 'VARCHAR', description: 'Name of the calendar year (the fiscal year it ends in)' },
  { name: 'day_number_of_week', dataType: 'INT32', kind: 'ATTRIBUTE', description: '1 (the first day of the week) to 7' },
  { name: 'week_number_of_month', dataType: 'INT32', kind: 'ATTRIBUTE', description: '1 to 5 (6 in a 53-week year)' },
  { name: 'week_number_of_quarter', dataType: 'INT32', kind: 'ATTRIBUTE', description: '1 to 13 (14)' },
  { name: 'week_number_of_year', dataType: 'INT32', kind: 'ATTRIBUTE', description: '1 to 52 (53)' },
  { name: 'is_weekend', dataType: 'BOOL', description: 'Saturday or Sunday' },
  { name: 'start_of_week_epoch', dataType: 'DATE', description: 'First day of the week' },
  { name: 'end_of_week_epoch', dataType: 'DATE', description: 'First day of the next week' },
  { name: 'start_of_month_epoch', dataType: 'DATE', description: 'First day of the month' },
  { name: 'end_of_month_epoch', dataType: 'DATE', description: 'First day of the next month' },
  { name: 'start_of_quarter_epoch', dataType: 'DATE', description: 'First day of the quarter' },
  { name: 'end_of_quarter_epoch', dataType: 'DATE', description: 'First day of the next quarter' },
  { name: 'start_of_year_epoch', dataType: 'DATE', description: 'First day of the year' },
  { name: 'end_of_year_epoch', dataType: 'DATE', description: 'First day of the next year' },
];

/** A custom calendar the emulator knows: its name in `calendar.<name>` and the table of its days. */
export interface CustomCalendar {
  /** The name a query writes after `calendar.` (matched case-insensitively). */
  name: string;
  database: string;
  schema: string;
  table: string;
}

/** The demo's custom calendars (emulator/src/demo.ts creates their tables). */
export const DEMO_CALENDARS: readonly CustomCalendar[] = [{ name: 'retail', database: 'demo', schema: 'engine_default_schema', table: 'retail_calendar' }];

/**
 * The custom calendars this emulator has: the demo's whose tables exist (none without --demo). One answer
 * for searchdata's `calendar.<name>` (searchdata/run.ts) and v2 `calendars/search` (v2/routes.ts).
 * @param hasTable whether the metadata store has the table `database.schema.table`.
 */
export function availableCalendars(hasTable: (database: string, schema: string, table: string) => boolean): CustomCalendar[] {
  return DEMO_CALENDARS.filter((c) => hasTable(c.database, c.schema, c.table));
}

/** The custom calendar named `name` (case-insensitive) among `calendars`, or undefined. */
export function findCalendar(name: string, calendars: readonly CustomCalendar[] = DEMO_CALENDARS): CustomCalendar | undefined {
  const k = name.trim().toLowerCase();
  return calendars.find((c) => c.name.toLowerCase() === k);
}

/** The quoted DuckDB name of a calendar's table (`"db.schema"."table"`, as emulator/README.md names tables). */
export function calendarTableSql(cal: CustomCalendar): string {
  return `${quoteIdent(`${cal.database}.${cal.schema}`)}.${quoteIdent(cal.table)}`;
}

/**
 * SQL of the start (a TIMESTAMP) of the calendar week, month, quarter or year holding the TIMESTAMP or DATE
 * SQL expression `x`, read from the calendar's table; NULL for a day outside the table's range. A `day` is
 * the day itself.
 */
export function calendarPeriodStartSql(cal: CustomCalendar, grain: 'day' | 'week' | 'month' | 'quarter' | 'year', x: string): string {
  if (grain === 'day') return `date_trunc('day', ${x})`;
  return `CAST((SELECT cal.${quoteIdent(`start_of_${grain}_epoch`)} FROM ${calendarTableSql(cal)} cal WHERE cal."date" = CAST(${x} AS DATE)) AS TIMESTAMP)`;
}

/** A calendar period that has `start_of_<period>_epoch` and `end_of_<period>_epoch` columns. */
export type CalendarPeriod = (typeof TO_DATE)[keyof typeof TO_DATE];

/** The calendars a query may name, for an error message: `calendar.gregorian, calendar.fiscal, calendar.retail`. */
export function knownCalendarNames(calendars: readonly CustomCalendar[] = DEMO_CALENDARS): string {
  return [GREGORIAN_CALENDAR_NAMES[0], FISCAL_CALENDAR_NAME, ...calendars.map((c) => c.name)].map((n) => `calendar.${n}`).join(', ');
}

/**
 * SQL of the end (a TIMESTAMP, exclusive: the next period's start, as connections-cust-cal "Updating a custom
 * calendar" says of `end_of_<period>_epoch`) of the calendar period holding the TIMESTAMP or DATE SQL `x`.
 */
export function calendarPeriodEndSql(cal: CustomCalendar, grain: CalendarPeriod, x: string): string {
  return `CAST((SELECT cal.${quoteIdent(`end_of_${grain}_epoch`)} FROM ${calendarTableSql(cal)} cal WHERE cal."date" = CAST(${x} AS DATE)) AS TIMESTAMP)`;
}

/**
 * SQL of the start (a TIMESTAMP) of the calendar period `k` periods after the one holding the DATE SQL `day`
 * (k < 0: before; 0: its own), read from the calendar's distinct period starts; NULL past the table's range.
 */
export function calendarShiftedStartSql(cal: CustomCalendar, grain: CalendarPeriod, day: string, k: number): string {
  if (!Number.isSafeInteger(k)) throw new RangeError(`period offset ${k}`);
  const col = quoteIdent(`start_of_${grain}_epoch`);
  const own = `(SELECT c0.${col} FROM ${calendarTableSql(cal)} c0 WHERE c0."date" = CAST(${day} AS DATE))`;
  if (k === 0) return `CAST(${own} AS TIMESTAMP)`;
  const starts = `SELECT DISTINCT c1.${col} AS s FROM ${calendarTableSql(cal)} c1 WHERE c1.${col} ${k < 0 ? '<' : '>'} ${own}`;
  return `CAST((SELECT s FROM (${starts}) ORDER BY s ${k < 0 ? 'DESC' : 'ASC'} LIMIT 1 OFFSET ${Math.abs(k) - 1}) AS TIMESTAMP)`;
}

/**
 * SQL of the 1-based number of the calendar `unit` holding the TIMESTAMP or DATE SQL `x` within its calendar
 * `within` period (the month of the quarter, the quarter of the year, the week of the month, …): the dense
 * rank of the day's `unit` start among those of its `within` period. A scalar subquery: for one value (the
 * clock), not for every row of a table (`calendarOrdinalsSelect` is ranked once and joined). NULL outside
 * the table's range.
 */
export function calendarOrdinalSql(cal: CustomCalendar, unit: CalendarPeriod, within: CalendarPeriod, x: string): string {
  return `(SELECT r.${quoteIdent(calendarOrdinalColumn(unit, within))} FROM (${calendarOrdinalsSelect(cal)}) r WHERE r."date" = CAST(${x} AS DATE))`;
}

/** The calendar periods, shortest first (the units of the catalogue's period-to-date keywords): an ordinal counts a shorter one within a longer one. */
const PERIOD_ORDER: readonly CalendarPeriod[] = Object.values(TO_DATE);

/** The column of `calendarOrdinalsSelect` holding the place of the `unit` in its `within` (`month_of_year`); throws unless unit is shorter. */
export function calendarOrdinalColumn(unit: CalendarPeriod, within: CalendarPeriod): string {
  if (PERIOD_ORDER.indexOf(unit) >= PERIOD_ORDER.indexOf(within)) throw new RangeError(`a ${within} holds no ${unit}s`);
  return `${unit}_of_${within}`;
}

/**
 * A SELECT of one row per day of the calendar: `date` and, for each shorter period in each longer one, its
 * 1-based place (`week_of_month`, …, `month_of_year`, `quarter_of_year`): the dense rank of the day's period
 * start among those of the longer period. Ranked once over the calendar's rows, to be joined by day.
 */
export function calendarOrdinalsSelect(cal: CustomCalendar): string {
  const cols: string[] = [];
  PERIOD_ORDER.forEach((unit, i) => {
    for (const within of PERIOD_ORDER.slice(i + 1)) {
      cols.push(`dense_rank() OVER (PARTITION BY ${quoteIdent(`start_of_${within}_epoch`)} ORDER BY ${quoteIdent(`start_of_${unit}_epoch`)}) AS ${quoteIdent(calendarOrdinalColumn(unit, within))}`);
    }
  });
  return `SELECT "date", ${cols.join(', ')} FROM ${calendarTableSql(cal)}`;
}

/** SQL reading the calendar column `column` (one of `CUSTOM_CALENDAR_COLUMNS`) for the day of `x`; throws for another name. */
export function calendarNumberSql(cal: CustomCalendar, column: string, x: string): string {
  if (!CUSTOM_CALENDAR_COLUMNS.some((c) => c.name === column)) throw new Error(`A custom calendar has no column ${column}`);
  return `(SELECT cal.${quoteIdent(column)} FROM ${calendarTableSql(cal)} cal WHERE cal."date" = CAST(${x} AS DATE))`;
}

/**
 * A DuckDB SELECT giving the rows of a 4-4-5 calendar (columns in `CUSTOM_CALENDAR_COLUMNS` order) for the
 * fiscal years `firstYear` to `lastYear`, as ThoughtSpot's FOUR_FOUR_FIVE calendar type with the year
 * starting in July and weeks on Sunday gives it (connections-cust-cal-create); its rows for fiscal 2022
 * equal the page's example file. A year starts on the first Sunday on or after 1 July of the year before
 * its number (FY2022 starts Sunday 4 July 2021). Weeks run Sunday to Saturday; quarters are 13 weeks in
 * months of 4, 4 and 5 weeks; a 53-week year gives its last week to the fourth quarter's last month.
 * Month names count from July.
 * @throws RangeError when the years are not whole numbers in order.
 */
export function retailCalendarSelect(firstYear: number, lastYear: number): string {
  if (!Number.isInteger(firstYear) || !Number.isInteger(lastYear) || firstYear > lastYear) throw new RangeError(`fiscal years ${firstYear} to ${lastYear}`);
  // the first Sunday on or after 1 July of year y - 1 (DuckDB dayofweek: Sunday = 0)
  const startOf = (y: string): string => `make_date(${y} - 1, 7, 1) + CAST((7 - dayofweek(make_date(${y} - 1, 7, 1))) % 7 AS INTEGER)`;
  const years = `SELECT y::INTEGER AS fy, ${startOf('y')} AS ys, ${startOf('y + 1')} AS ye FROM range(${firstYear}, ${lastYear + 1}) t(y)`;
  const days = `SELECT fy, ys, ye, CAST(d AS DATE) AS "date", datediff('day', ys, CAST(d AS DATE)) AS n FROM (${years}) yr, generate_series(CAST(ys AS TIMESTAMP), CAST(ye AS TIMESTAMP) - INTERVAL 1 DAY, INTERVAL 1 DAY) g(d)`;
  // week of year w (1…53), quarter q (week 53 stays in the fourth), week of quarter wq, month of quarter mq
  const weeks = `SELECT *, n // 7 + 1 AS w, least((n // 7) // 13 + 1, 4) AS q FROM (${days})`;
  const quarters = `SELECT *, w - (q - 1) * 13 AS wq FROM (${weeks})`;
  const months = `SELECT *, CASE WHEN wq <= 4 THEN 1 WHEN wq <= 8 THEN 2 ELSE 3 END AS mq FROM (${quarters})`;
  const firstWeekOfMonth = `CASE mq WHEN 1 THEN 0 WHEN 2 THEN 4 ELSE 8 END`;
  const monthStart = `ys + CAST(((q - 1) * 13 + ${firstWeekOfMonth}) * 7 AS INTEGER)`;
  const quarterEnd = `CASE WHEN q = 4 THEN ye ELSE ys + CAST(q * 91 AS INTEGER) END`;
  const monthEnd = `CASE WHEN mq = 3 THEN ${quarterEnd} ELSE ${monthStart} + 28 END`;
  const monthName = `monthname(make_date(2000, (6 + (q - 1) * 3 + mq - 1) % 12 + 1, 1))`;
  return `SELECT "date", dayname("date") AS day_of_week, ${monthName} AS "month", 'Q' || q AS quarter, CAST(fy AS VARCHAR) AS "year",
    CAST(dayofweek("date") + 1 AS INTEGER) AS day_number_of_week, CAST(wq - ${firstWeekOfMonth} AS INTEGER) AS week_number_of_month,
    CAST(wq AS INTEGER) AS week_number_of_quarter, CAST(w AS INTEGER) AS week_number_of_year, dayofweek("date") IN (0, 6) AS is_weekend,
    ys + CAST((w - 1) * 7 AS INTEGER) AS start_of_week_epoch, ys + CAST(w * 7 AS INTEGER) AS end_of_week_epoch,
    ${monthStart} AS start_of_month_epoch, ${monthEnd} AS end_of_month_epoch,
    ys + CAST((q - 1) * 91 AS INTEGER) AS start_of_quarter_epoch, ${quarterEnd} AS end_of_quarter_epoch,
    ys AS start_of_year_epoch, ye AS end_of_year_epoch
  FROM (${months}) ORDER BY "date"`;
}

