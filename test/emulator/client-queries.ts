// Ten demo search queries over the demo flights table, each with the DuckDB SQL that asks the same
// question ($FLIGHTS stands for the table's DuckDB name). Used by client-public.test.ts (answers must
// be equal) and by test/bench/emulator.bench.ts (latency next to DuckDB's). Not a test file itself.
//
// Conventions assumed of searchdata (docs/service-notes.md §1.2): a MEASURE is summed (its default aggregation), an
// attribute groups; a column named both plainly and in a filter is one output column; `top n` keeps
// the n largest of the first measure, descending; date buckets come back as epoch seconds.

export interface DemoQuery {
  /** The search query (docs/service-interface.md §4.3). */
  query: string;
  /** The same question in DuckDB SQL, columns in the answer's order. */
  sql: string;
  /** Number of output columns. */
  columns: number;
  /** True when the answer's row order is defined (top n, sort by). */
  ordered: boolean;
}

export const DEMO_QUERIES: DemoQuery[] = [
  { query: '[origin] [delay]', sql: 'SELECT origin, sum(delay) FROM $FLIGHTS GROUP BY origin', columns: 2, ordered: false },
  { query: '[origin] [delay] top 10', sql: 'SELECT origin, sum(delay) AS s FROM $FLIGHTS GROUP BY origin ORDER BY s DESC LIMIT 10', columns: 2, ordered: true },
  {
    query: "[origin] [destination] [distance] [origin] = 'SEA'",
    sql: "SELECT origin, destination, sum(distance) FROM $FLIGHTS WHERE origin = 'SEA' GROUP BY origin, destination",
    columns: 3,
    ordered: false,
  },
  {
    query: "[origin] [destination] [delay] [origin] = 'SEA', 'PDX'",
    sql: "SELECT origin, destination, sum(delay) FROM $FLIGHTS WHERE origin IN ('SEA', 'PDX') GROUP BY origin, destination",
    columns: 3,
    ordered: false,
  },
  { query: '[origin] [delay] sort by [delay] descending', sql: 'SELECT origin, sum(delay) AS s FROM $FLIGHTS GROUP BY origin ORDER BY s DESC, origin', columns: 2, ordered: true },
  { query: "[origin] [delay] [origin] != 'SEA'", sql: "SELECT origin, sum(delay) FROM $FLIGHTS WHERE origin <> 'SEA' GROUP BY origin", columns: 2, ordered: false },
  { query: "[destination] [delay] [destination] contains 'S'", sql: "SELECT destination, sum(delay) FROM $FLIGHTS WHERE destination ILIKE '%S%' GROUP BY destination", columns: 2, ordered: false },
  {
    query: "[origin] [destination] [distance] [destination] = 'LAX' top 5",
    sql: "SELECT origin, destination, sum(distance) AS s FROM $FLIGHTS WHERE destination = 'LAX' GROUP BY origin, destination ORDER BY s DESC LIMIT 5",
    columns: 3,
    ordered: true,
  },
  { query: '[distance]', sql: 'SELECT sum(distance) FROM $FLIGHTS', columns: 1, ordered: true },
  { query: '[origin] [destination] [distance]', sql: 'SELECT origin, destination, sum(distance) FROM $FLIGHTS GROUP BY origin, destination', columns: 3, ordered: false },
];

/** More questions for the tests only: a date bucket (epoch seconds), another aggregation, a date filter. */
export const MORE_QUERIES: DemoQuery[] = [
  { query: '[date].monthly [distance]', sql: `SELECT epoch(date_trunc('month', "date"))::BIGINT, sum(distance) FROM $FLIGHTS GROUP BY 1`, columns: 2, ordered: false },
  { query: "[origin] average [delay] [origin] = 'SEA', 'LAX'", sql: "SELECT origin, avg(delay) FROM $FLIGHTS WHERE origin IN ('SEA', 'LAX') GROUP BY origin", columns: 2, ordered: false },
  { query: "[origin] [delay] [date] = '2001-01-05'", sql: `SELECT origin, sum(delay) FROM $FLIGHTS WHERE CAST("date" AS DATE) = DATE '2001-01-05' GROUP BY origin`, columns: 2, ordered: false },
];
