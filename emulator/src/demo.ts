/**
 * The built-in `--demo` seed: datasets of the `vega-datasets` npm package, read by DuckDB at first
 * start, in database `demo`, schema `engine_default_schema`: `flights` (200,000 rows, every 15th of
 * flights-3m.parquet, January to June 2001: date as DATE_TIME, delay and distance as INT32 measures,
 * origin, destination), `cars`, `movies`, `seattle-weather`, `stocks` (dates parsed to DATE), `airports`
 * (code, name, place, latitude and longitude of the flights' airports, for the location keywords) and
 * `retail_calendar`, the days of the custom calendar `retail` (emulator/src/customCalendar.ts).
 * Plus a worksheet, a model (flights with their origin and destination airports), three pinboards of three visualizations each, two answers (one liveboard and one answer with formulas), tags, and the users
 * `tsadmin` / `admin` (group Administrator: every privilege) and `analyst` / `analyst` (group Analysts:
 * reads the demo data sources); `Data Managers` (DATAMANAGEMENT) has none until `user/sync`. A second
 * Org, `DEMO_SECOND_ORG` (table `quotes`, user `trader` / `trader`); `analyst` is in both Orgs.
 */
import { dirname, join } from 'node:path';
import { CUSTOM_CALENDAR_COLUMNS, DEMO_CALENDARS, retailCalendarSelect } from './customCalendar';
import { quoteLiteral } from './engine';
import type { SeedModel } from './seed';

/** Folder of the vega-datasets files. */
export function vegaDataDir(): string {
  // The package exports only its build entry (build/index.js); the data folder sits beside build/.
  return join(dirname(require.resolve('vega-datasets')), '..', 'data');
}

/** The name of the demo's second Org (beside Primary). */
export const DEMO_SECOND_ORG = 'Finance';

/** The demo seed model (tables are filled by DuckDB `SELECT`s over the vega-datasets files). */
export function demoSeed(): SeedModel {
  return {
    // id 1: the Org of the documented auth/token/full example (developer-docs authentication.adoc, `"org_id": 1`)
    orgs: [{ name: DEMO_SECOND_ORG, id: 1, description: 'The demo second Org: market quotes' }],
    groups: [
      { name: 'Administrator', displayName: 'Administrator', privileges: ['ADMINISTRATION'] },
      { name: 'Analysts', displayName: 'Analysts', privileges: ['AUTHORING', 'DATADOWNLOADING'] },
      { name: 'Data Managers', displayName: 'Data Managers', privileges: ['DATAMANAGEMENT'] },
      { name: 'Finance Analysts', displayName: 'Finance Analysts', privileges: ['AUTHORING', 'DATADOWNLOADING'], org: DEMO_SECOND_ORG },
    ],
    users: [
      { name: 'tsadmin', displayName: 'Administrator', password: 'admin', groups: ['Administrator'] },
      { name: 'analyst', displayName: 'Analyst', password: 'analyst', groups: ['Analysts', 'Finance Analysts'], orgs: ['Primary', DEMO_SECOND_ORG] },
      { name: 'trader', displayName: 'Trader', password: 'trader', groups: ['Finance Analysts'], orgs: [DEMO_SECOND_ORG] },
    ],
    tags: [{ name: 'demo', description: 'Built-in demo data (vega-datasets)' }, 'flights', 'finance', 'weather'],
    tables: demoTables(),
    worksheets: [
      {
        name: 'Flights Worksheet',
        description: 'Flights with friendlier column names',
        table: 'flights',
        tags: ['demo', 'flights'],
        sharedWith: ['Analysts'],
        author: 'tsadmin',
        columns: [
          { name: 'Departure', column: 'date' },
          { name: 'Origin', column: 'origin' },
          { name: 'Destination', column: 'destination' },
          { name: 'Delay', column: 'delay' },
          { name: 'Distance', column: 'distance' },
        ],
      },
    ],
    models: [flightsModel()],
    pinboards: [
      {
        name: 'Flight Operations',
        description: 'Delays and traffic of 2001',
        tags: ['demo', 'flights'],
        sharedWith: ['Analysts'],
        author: 'tsadmin',
        visualizations: [
          { name: 'Total delay by origin, top 10', dataSource: 'flights', query: '[origin] [delay] top 10' },
          { name: 'Distance flown per month', dataSource: 'flights', query: '[date].monthly [distance]' },
          { name: 'Average delay by weekday', dataSource: 'flights', query: "[date].'day of week' average [delay]" },
        ],
      },
      {
        name: 'Flight Delays by Airport',
        description: 'Late flights and shares of delay, from formulas on the Flights Model',
        tags: ['demo', 'flights'],
        sharedWith: ['Analysts'],
        author: 'tsadmin',
        visualizations: [
          { name: 'Delayed share by destination state', dataSource: 'Flights Model', query: '[Destination State] [Delayed Share] [Average Delay]', formulas: [{ id: 'formula_Average Delay', name: 'Average Delay', expr: 'average ( [Delay] )' }] },
          { name: "Each airport's share of its state's delay", dataSource: 'Flights Model', query: "[Origin State] [Origin] [State Share] [Origin State] = 'CA'", formulas: [{ id: 'formula_State Share', name: 'State Share', expr: 'sum ( [Delay] ) / group_sum ( [Delay] , [Origin State] )' }] },
          { name: 'Late flights per month', dataSource: 'Flights Model', query: '[Departure].monthly [Late Flights]', formulas: [LATE_FLIGHTS] },
        ],
      },
      {
        name: 'Markets and Weather',
        description: 'Stock prices and Seattle weather',
        tags: ['demo', 'finance', 'weather'],
        sharedWith: ['Analysts'],
        author: 'tsadmin',
        visualizations: [
          { name: 'Average price by symbol and year', dataSource: 'stocks', query: '[symbol] [date].yearly [price]' },
          { name: 'Days by weather', dataSource: 'seattle-weather', query: '[weather] count [date]' },
          { name: 'Monthly maximum temperature', dataSource: 'seattle-weather', query: '[date].monthly [temp_max]' },
        ],
      },
    ],
    answers: [
      {
        name: 'Top grossing genres',
        description: 'Worldwide gross by major genre',
        tags: ['demo'],
        sharedWith: ['Analysts'],
        author: 'tsadmin',
        visualizations: [{ name: 'Worldwide gross by genre', dataSource: 'movies', query: '[Major Genre] [Worldwide Gross] top 5' }],
      },
      {
        name: 'Late flights by origin state',
        description: 'Flights more than 15 minutes late and each state\'s share of all delay minutes (answer formulas)',
        tags: ['demo', 'flights'],
        sharedWith: ['Analysts'],
        author: 'tsadmin',
        visualizations: [{
          name: 'Late flights by origin state',
          dataSource: 'Flights Model',
          query: '[Origin State] [Late Flights] [Share of All Delay] [Delayed Share]',
          formulas: [LATE_FLIGHTS, { id: 'formula_Share of All Delay', name: 'Share of All Delay', expr: 'sum ( [Delay] ) / group_aggregate ( sum ( [Delay] ) , { } , query_filters ( ) )' }],
        }],
      },
    ],
  };
}

/**
 * The demo's model: each flight with its origin airport and its destination airport, two paths to the one
 * `airports` table (`airports_1` and `airports_2`, the table path ids a ThoughtSpot export writes), joined
 * LEFT_OUTER so a flight whose airport is missing keeps its row; and a formula column, computed per group of a search.
 */
function flightsModel(): NonNullable<SeedModel['models']>[number] {
  const airport = (path: string, side: 'Origin' | 'Destination'): NonNullable<SeedModel['models']>[number]['columns'] => [
    { name: `${side} Airport`, column_id: `${path}::name`, description: `Name of the ${side.toLowerCase()} airport` },
    { name: `${side} City`, column_id: `${path}::city` },
    { name: `${side} State`, column_id: `${path}::state` },
  ];
  return {
    name: 'Flights Model',
    description: 'Flights with the city and state of their origin and destination airports',
    tags: ['demo', 'flights'],
    sharedWith: ['Analysts'],
    author: 'tsadmin',
    tables: [{ name: 'flights' }, { name: 'airports' }],
    joins: [
      { name: 'flights_origin', source: 'flights', destination: 'airports', type: 'LEFT_OUTER', on: '[flights::origin] = [airports::iata]' },
      { name: 'flights_destination', source: 'flights', destination: 'airports', type: 'LEFT_OUTER', on: '[flights::destination] = [airports::iata]' },
    ],
    table_paths: [
      { id: 'flights_1', table: 'flights', join_path: [{}] },
      { id: 'airports_1', table: 'airports', join_path: [{ join: ['flights_origin'] }] },
      { id: 'airports_2', table: 'airports', join_path: [{ join: ['flights_destination'] }] },
    ],
    formulas: [{ id: 'formula_Delayed Share', name: 'Delayed Share', expr: 'sum ( if ( [Delay] > 15 ) then 1 else 0 ) / count ( [Delay] )', properties: { column_type: 'MEASURE' } }],
    columns: [
      { name: 'Departure', column_id: 'flights_1::date' },
      { name: 'Delay', column_id: 'flights_1::delay' },
      { name: 'Distance', column_id: 'flights_1::distance' },
      { name: 'Origin', column_id: 'flights_1::origin' },
      { name: 'Destination', column_id: 'flights_1::destination' },
      ...airport('airports_1', 'Origin'),
      ...airport('airports_2', 'Destination'),
      { name: 'Delayed Share', formula_id: 'formula_Delayed Share', description: 'Share of flights more than 15 minutes late' },
    ],
  };
}

/** A formula of the demo's answer and liveboard on the Flights Model: the flights more than 15 minutes late. */
const LATE_FLIGHTS = { id: 'formula_Late Flights', name: 'Late Flights', expr: 'count_if ( [Delay] > 15 , [Delay] )' };

/** The fiscal years of the demo's custom calendar: the flights, weather and stocks data, the docs' example year 2022, and today's. */
const CALENDAR_YEARS = [1990, 2035] as const;

/** The demo's tables, each read from a vega-datasets file by a DuckDB `SELECT` (the calendar is generated). */
function demoTables(): NonNullable<SeedModel['tables']> {
  const d = vegaDataDir();
  const f = (name: string): string => quoteLiteral(join(d, name));
  const common = { database: 'demo', schema: 'engine_default_schema', sharedWith: ['Analysts'], author: 'tsadmin' };
  return [
    {
      ...common,
      name: 'flights',
      description: 'US domestic flights, January to June 2001 (every 15th of the 3 million of vega-datasets flights-3m)',
      tags: ['demo', 'flights'],
      columns: [
        { name: 'date', dataType: 'DATE_TIME', description: 'Scheduled departure' },
        { name: 'delay', dataType: 'INT32', description: 'Arrival delay in minutes' },
        { name: 'distance', dataType: 'INT32', description: 'Distance in miles' },
        { name: 'origin', dataType: 'VARCHAR', description: 'Origin airport (IATA code)', synonyms: ['from'] },
        { name: 'destination', dataType: 'VARCHAR', description: 'Destination airport (IATA code)', synonyms: ['to'] },
      ],
      select: `SELECT "date", delay, distance, origin, destination FROM read_parquet(${f('flights-3m.parquet')}, file_row_number = true) WHERE file_row_number % 15 = 0 ORDER BY file_row_number`,
    },
    {
      ...common,
      name: 'cars',
      description: 'Cars of 1970-1982 (vega-datasets cars)',
      tags: ['demo'],
      columns: [
        { name: 'Name', dataType: 'VARCHAR' },
        { name: 'Miles_per_Gallon', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'Cylinders', dataType: 'INT32', kind: 'ATTRIBUTE' },
        { name: 'Displacement', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'Horsepower', dataType: 'INT32', aggregation: 'AVERAGE' },
        { name: 'Weight_in_lbs', dataType: 'INT32', aggregation: 'AVERAGE' },
        { name: 'Acceleration', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'Year', dataType: 'DATE' },
        { name: 'Origin', dataType: 'VARCHAR' },
      ],
      select: `SELECT "Name", "Miles_per_Gallon", "Cylinders", "Displacement", "Horsepower", "Weight_in_lbs", "Acceleration", "Year", "Origin" FROM read_json_auto(${f('cars.json')})`,
    },
    {
      ...common,
      name: 'movies',
      description: 'Movies with grosses and ratings (vega-datasets movies)',
      tags: ['demo'],
      columns: [
        { name: 'Title', dataType: 'VARCHAR' },
        { name: 'US Gross', dataType: 'INT64' },
        { name: 'Worldwide Gross', dataType: 'INT64' },
        { name: 'Production Budget', dataType: 'INT64' },
        { name: 'Release Date', dataType: 'DATE' },
        { name: 'MPAA Rating', dataType: 'VARCHAR' },
        { name: 'Running Time min', dataType: 'INT32', aggregation: 'AVERAGE' },
        { name: 'Distributor', dataType: 'VARCHAR' },
        { name: 'Major Genre', dataType: 'VARCHAR', synonyms: ['genre'] },
        { name: 'Director', dataType: 'VARCHAR' },
        { name: 'IMDB Rating', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'Rotten Tomatoes Rating', dataType: 'INT32', aggregation: 'AVERAGE' },
      ],
      select: `SELECT ("Title" ->> '$') AS "Title", "US Gross", "Worldwide Gross", "Production Budget", try_strptime("Release Date", '%b %d %Y')::DATE, "MPAA Rating", "Running Time min", "Distributor", "Major Genre", "Director", "IMDB Rating", "Rotten Tomatoes Rating" FROM read_json_auto(${f('movies.json')})`,
    },
    {
      ...common,
      name: 'seattle-weather',
      description: 'Daily weather in Seattle 2012-2015 (vega-datasets seattle-weather)',
      tags: ['demo', 'weather'],
      columns: [
        { name: 'date', dataType: 'DATE' },
        { name: 'precipitation', dataType: 'DOUBLE' },
        { name: 'temp_max', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'temp_min', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'wind', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
        { name: 'weather', dataType: 'VARCHAR' },
      ],
      select: `SELECT "date", precipitation, temp_max, temp_min, wind, weather FROM read_csv(${f('seattle-weather.csv')}, header = true)`,
    },
    {
      ...common,
      name: 'stocks',
      description: 'Monthly stock prices 2000-2010 (vega-datasets stocks)',
      tags: ['demo', 'finance'],
      columns: [
        { name: 'symbol', dataType: 'VARCHAR' },
        { name: 'date', dataType: 'DATE' },
        { name: 'price', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
      ],
      select: `SELECT symbol, strptime("date", '%b %d %Y')::DATE, price FROM read_csv(${f('stocks.csv')}, header = true, columns = {'symbol': 'VARCHAR', 'date': 'VARCHAR', 'price': 'DOUBLE'})`,
    },
    ...locationAndCalendarTables(),
    ...financeTables(),
  ];
}

/** The demo's location data (airports with coordinates) and the tables of its custom calendars. */
function locationAndCalendarTables(): NonNullable<SeedModel['tables']> {
  const f = (name: string): string => quoteLiteral(join(vegaDataDir(), name));
  const common = { database: 'demo', schema: 'engine_default_schema', sharedWith: ['Analysts'], author: 'tsadmin' };
  return [
    {
      ...common,
      name: 'airports',
      description: 'US airports with their coordinates (vega-datasets airports); iata is the code of flights origin and destination',
      tags: ['demo', 'flights'],
      columns: [
        { name: 'iata', dataType: 'VARCHAR', description: 'Airport code (IATA or FAA)', synonyms: ['airport code'] },
        { name: 'name', dataType: 'VARCHAR' },
        { name: 'city', dataType: 'VARCHAR' },
        { name: 'state', dataType: 'VARCHAR' },
        { name: 'country', dataType: 'VARCHAR' },
        // the location of the rows for near / within / farther than (emulator/src/searchdata/geo.ts)
        { name: 'latitude', dataType: 'DOUBLE', kind: 'ATTRIBUTE', description: 'Degrees north' },
        { name: 'longitude', dataType: 'DOUBLE', kind: 'ATTRIBUTE', description: 'Degrees east' },
      ],
      select: `SELECT iata, "name", city, state, country, latitude, longitude FROM read_csv(${f('airports.csv')}, header = true, columns = {'iata': 'VARCHAR', 'name': 'VARCHAR', 'city': 'VARCHAR', 'state': 'VARCHAR', 'country': 'VARCHAR', 'latitude': 'DOUBLE', 'longitude': 'DOUBLE'})`,
    },
    ...DEMO_CALENDARS.map((cal) => ({
      ...common,
      name: cal.table,
      description: `Custom calendar ${cal.name}: a 4-4-5 retail calendar, years from July, weeks from Sunday (fiscal years ${CALENDAR_YEARS[0]}-${CALENDAR_YEARS[1]})`,
      tags: ['demo'],
      columns: [...CUSTOM_CALENDAR_COLUMNS],
      select: retailCalendarSelect(CALENDAR_YEARS[0], CALENDAR_YEARS[1]),
    })),
  ];
}

/** The tables of the demo's second Org (`DEMO_SECOND_ORG`). */
function financeTables(): NonNullable<SeedModel['tables']> {
  const f = (name: string): string => quoteLiteral(join(vegaDataDir(), name));
  return [
    {
      database: 'finance',
      schema: 'engine_default_schema',
      org: DEMO_SECOND_ORG,
      sharedWith: ['Finance Analysts'],
      author: 'tsadmin',
      name: 'quotes',
      description: 'Monthly stock prices of the Finance Org (vega-datasets stocks)',
      tags: ['finance'],
      columns: [
        { name: 'symbol', dataType: 'VARCHAR' },
        { name: 'date', dataType: 'DATE' },
        { name: 'price', dataType: 'DOUBLE', aggregation: 'AVERAGE' },
      ],
      select: `SELECT symbol, strptime("date", '%b %d %Y')::DATE, price FROM read_csv(${f('stocks.csv')}, header = true, columns = {'symbol': 'VARCHAR', 'date': 'VARCHAR', 'price': 'DOUBLE'})`,
    },
  ];
}
