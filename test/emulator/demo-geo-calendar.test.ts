// The demo's location data and custom calendar (emulator/src/demo.ts, emulator/src/searchdata/geo.ts,
// emulator/src/customCalendar.ts), checked in the running emulator's database against facts computed
// apart from them: the raw airports.csv read in JavaScript, a haversine written apart (airports-support.ts), rows of ThoughtSpot's
// example custom calendar (docs.thoughtspot.com cloud/latest/connections-cust-cal, customer-calendar-eg.csv),
// and the 4-4-5 rule checked day by day.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { demoSeed } from '../../emulator/src/demo';
import type { LogicalColumn } from '../../emulator/src/metadataStore';
import { calendarNumberSql, calendarPeriodStartSql, calendarTableSql, CUSTOM_CALENDAR_COLUMNS, findCalendar } from '../../emulator/src/customCalendar';
import { distanceKmSql, geoColumnsOf, locationConditionSql, toKm } from '../../emulator/src/searchdata/geo';
import { AIRPORTS_GUID, AIRPORTS_TABLE, airportByCode, airports, haversineKm } from './airports-support';
import { adminCore } from './core-support';

const FLIGHTS = '"demo.engine_default_schema"."flights"';

const core = adminCore();

/** The airports data source's columns as the demo declares them (a table's columns read their own names). */
const airportColumns: LogicalColumn[] = demoSeed()
  .tables!.find((t) => t.name === 'airports')!
  .columns!.map((c) => ({ id: c.name, name: c.name, dataType: c.dataType, kind: c.kind ?? 'ATTRIBUTE', aggregation: 'NONE', synonyms: [], physicalName: c.name }));

describe('airports: the location data of the demo', () => {
  test('the airports table holds every row of airports.csv with its coordinates', async () => {
    const rows = (await core.sql(`SELECT iata, latitude, longitude FROM ${AIRPORTS_TABLE} ORDER BY iata`)) as [string, number, number][];
    const expected = [...airports].sort((a, b) => (a.iata < b.iata ? -1 : 1)).map((a) => [a.iata, a.latitude, a.longitude]);
    assert.equal(rows.length, 3376);
    assert.deepEqual(rows, expected);
  });

  test('every origin and destination of the flights is an airport of the table, so a flight can be placed', async () => {
    const missing = await core.sql(`SELECT DISTINCT code FROM (SELECT origin AS code FROM ${FLIGHTS} UNION SELECT destination FROM ${FLIGHTS}) WHERE code NOT IN (SELECT iata FROM ${AIRPORTS_TABLE})`);
    assert.deepEqual(missing, []);
  });

  test('the data source is offered with its latitude and longitude as location columns', async () => {
    const geo = geoColumnsOf(airportColumns);
    assert.deepEqual([geo?.latitude.name, geo?.longitude.name], ['latitude', 'longitude']);
    const r = await core.call('POST', '/searchdata', { query_string: "[iata] [city] [latitude] [longitude] [iata] = 'SEA'", data_source_guid: AIRPORTS_GUID }, core.cookie);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, [['SEA', 'Seattle', airportByCode('SEA').latitude, airportByCode('SEA').longitude]]);
  });

  test('distanceKmSql is the great-circle distance (SEA to PDX, JFK to LAX)', async () => {
    for (const [a, b, known] of [['SEA', 'PDX', 208], ['JFK', 'LAX', 3983]] as const) {
      const [x, y] = [airportByCode(a), airportByCode(b)];
      const [[km]] = (await core.sql(`SELECT ${distanceKmSql(String(x.latitude), String(x.longitude), String(y.latitude), String(y.longitude))}`)) as [[number]];
      assert.ok(Math.abs(km - haversineKm(x, y)) < 1e-6, `${a}-${b}: ${km}`);
      assert.ok(Math.abs(km - known) / known < 0.01, `${a}-${b} is about ${known} km, not ${km}`);
    }
    assert.equal(toKm(50, 'miles'), 80.4672);
    assert.equal(toKm(1500, 'meters'), 1.5);
    assert.throws(() => toKm(-1, 'km'), RangeError);
  });

  test('locationConditionSql: within n of a place named by a column value, and farther than n', async () => {
    const iata = airportColumns.find((c) => c.name === 'iata')!;
    const sea = airportByCode('SEA');
    for (const [relation, km] of [['within', toKm(50, 'miles')], ['farther', 2500]] as const) {
      const cond = locationConditionSql({ columns: airportColumns, table: AIRPORTS_TABLE, placeColumn: iata, place: 'sea', relation, km });
      const got = ((await core.sql(`SELECT iata FROM ${AIRPORTS_TABLE} WHERE ${cond.sql} ORDER BY iata`, cond.params)) as [string][]).map(([c]) => c);
      const expected = airports.filter((a) => (relation === 'within' ? haversineKm(a, sea) <= km : haversineKm(a, sea) > km)).map((a) => a.iata).sort();
      assert.ok(expected.length > 3, `${relation} ${km}`);
      assert.deepEqual(got, expected, `${relation} ${km} km of SEA`);
    }
    const none = locationConditionSql({ columns: airportColumns, table: AIRPORTS_TABLE, placeColumn: iata, place: 'nowhere', relation: 'within', km: 1e6 });
    assert.deepEqual(await core.sql(`SELECT count(*) FROM ${AIRPORTS_TABLE} WHERE ${none.sql}`, none.params), [[0]], 'an unknown place matches no row');
  });
});

describe('the custom calendar retail (4-4-5, years from July, weeks from Sunday)', () => {
  const cal = findCalendar('Retail')!;
  const T = () => calendarTableSql(cal);
  // Rows of ThoughtSpot's example calendar file, fiscal 2022:
  // date, day_of_week, month, quarter, year, day_number_of_week, week_number_of_month, week_number_of_quarter, week_number_of_year, is_weekend
  const DOC_ROWS: [string, string, string, string, string, number, number, number, number, boolean][] = [
    ['2021-07-04', 'Sunday', 'July', 'Q1', '2022', 1, 1, 1, 1, true],
    ['2021-07-10', 'Saturday', 'July', 'Q1', '2022', 7, 1, 1, 1, true],
    ['2021-08-01', 'Sunday', 'August', 'Q1', '2022', 1, 1, 5, 5, true],
    ['2021-08-29', 'Sunday', 'September', 'Q1', '2022', 1, 1, 9, 9, true],
    ['2021-10-01', 'Friday', 'September', 'Q1', '2022', 6, 5, 13, 13, false],
    ['2021-10-03', 'Sunday', 'October', 'Q2', '2022', 1, 1, 1, 14, true],
    ['2021-11-28', 'Sunday', 'December', 'Q2', '2022', 1, 1, 9, 22, true],
    ['2022-01-01', 'Saturday', 'December', 'Q2', '2022', 7, 5, 13, 26, true],
    ['2022-01-02', 'Sunday', 'January', 'Q3', '2022', 1, 1, 1, 27, true],
    ['2022-02-14', 'Monday', 'February', 'Q3', '2022', 2, 3, 7, 33, false],
  ];

  test("its columns are the documented ones, and fiscal 2022 equals the docs' example rows", async () => {
    const cols = (await core.sql(`SELECT column_name FROM (DESCRIBE ${T()})`)).map(([c]) => c);
    assert.deepEqual(cols, CUSTOM_CALENDAR_COLUMNS.map((c) => c.name));
    for (const row of DOC_ROWS) {
      const got = await core.sql(`SELECT strftime("date", '%Y-%m-%d'), day_of_week, "month", quarter, "year", day_number_of_week, week_number_of_month, week_number_of_quarter, week_number_of_year, is_weekend FROM ${T()} WHERE "date" = CAST(? AS DATE)`, [row[0]]);
      assert.deepEqual(got, [row]);
    }
  });

  test('every day once; years start on the first Sunday on or after 1 July; quarters are 4-4-5 weeks; ends are the next starts', async () => {
    const rows = (await core.sql(
      `SELECT epoch("date") // 86400, "year", quarter, "month", week_number_of_year, week_number_of_month, epoch(start_of_week_epoch) // 86400, epoch(end_of_week_epoch) // 86400,
         epoch(start_of_month_epoch) // 86400, epoch(end_of_month_epoch) // 86400, epoch(start_of_quarter_epoch) // 86400, epoch(end_of_quarter_epoch) // 86400,
         epoch(start_of_year_epoch) // 86400, epoch(end_of_year_epoch) // 86400 FROM ${T()} ORDER BY "date"`,
    )) as number[][];
    const weeksPerMonth = new Map<string, Set<number>>();
    rows.forEach((r, i) => {
      const [day, year, quarter, month, w, , sw, ew, sm, em, sq, eq, sy, ey] = r as [number, string, string, string, number, number, number, number, number, number, number, number, number, number];
      if (i > 0) assert.equal(day, rows[i - 1]![0]! + 1, 'consecutive days');
      assert.ok(sw <= day && day < ew && ew - sw === 7 && sm <= day && day < em && sq <= day && day < eq && sy <= day && day < ey, `bounds of day ${day}`);
      const first = new Date(sy * 86400000);
      assert.equal(first.getUTCDay(), 0, 'a year starts on Sunday');
      assert.equal(first.getUTCFullYear(), Number(year) - 1);
      assert.ok(first.getUTCMonth() === 6 && first.getUTCDate() <= 7, 'the first Sunday on or after 1 July');
      assert.equal(w, Math.floor((day - sy) / 7) + 1);
      const k = `${year} ${quarter} ${month}`;
      weeksPerMonth.set(k, (weeksPerMonth.get(k) ?? new Set()).add(w));
    });
    const pattern = new Map<string, number[]>();
    for (const [k, weeks] of weeksPerMonth) {
      const y = k.split(' ')[0]!;
      pattern.set(y, [...(pattern.get(y) ?? []), weeks.size]);
    }
    for (const [y, sizes] of pattern) {
      const last = sizes[11];
      assert.deepEqual(sizes, [4, 4, 5, 4, 4, 5, 4, 4, 5, 4, 4, last], y);
      assert.ok(last === 5 || last === 6, `${y}: a 53-week year gives its last month a sixth week`);
    }
    assert.ok([...pattern.values()].some((s) => s[11] === 6), 'some years have 53 weeks');
  });

  test('calendarPeriodStartSql and calendarNumberSql read a day\'s period from the table', async () => {
    const x = "TIMESTAMP '2021-10-01 15:30:00'";
    const got = await core.sql(
      `SELECT ${['day', 'week', 'month', 'quarter', 'year'].map((g) => `strftime(${calendarPeriodStartSql(cal, g as 'day', x)}, '%Y-%m-%d')`).join(', ')}, ${calendarNumberSql(cal, 'week_number_of_year', x)}`,
    );
    // 1 October 2021 is the Friday of week 13: its month (September) began on 29 August, its quarter and year on 4 July
    assert.deepEqual(got, [['2021-10-01', '2021-09-26', '2021-08-29', '2021-07-04', '2021-07-04', 13]]);
    assert.throws(() => calendarNumberSql(cal, 'x; DROP TABLE y', x), /no column/);
    assert.equal(findCalendar('nope'), undefined);
  });
});
