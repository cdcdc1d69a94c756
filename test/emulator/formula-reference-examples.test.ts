// Every documented example of the formula reference (each catalogue entry's `example`, its left side where
// it states a result) run the way the emulator runs an answer formula: withFormulaColumns reads it as a
// column of a table whose columns are named as the examples name them, compileSearch compiles a search
// naming it, and DuckDB runs that SQL over a few rows. Each one runs and gives its rows; those the
// emulator does not run (the passthrough sql_* functions, similar_to, similarity) are refused with their
// reason (docs/service-notes.md §3.6). Values: formula-examples.test.ts and formula-catalogue.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { ColumnDataType } from '../../common/src/model';
import { FORMULA_FUNCTIONS } from '../../common/src/formula/functions';
import { formulaNodes, parseFormula } from '../../common/src/formula/parser';
import { parseQuery } from '../../common/src/language/parser';
import { DUCKDB_TYPE } from '../../emulator/src/engine';
import type { LogicalTable } from '../../emulator/src/metadataStore';
import { compileSearch } from '../../emulator/src/searchdata/compile';
import { withFormulaColumns } from '../../emulator/src/searchdata/formulaColumns';

/** The type of each column the examples name, and its values on the table's four rows. */
const N = (...v: number[]) => ['DOUBLE', v] as const;
const T = (...v: string[]) => ['VARCHAR', v] as const;
const D = (...v: string[]) => ['DATE', v] as const;
const DT = (...v: string[]) => ['DATE_TIME', v] as const;
const money = N(120, 640, 35.5, 990);
const day = D('2014-01-15', '2014-03-02', '2015-01-30', '2015-07-04');
const moment = DT('2014-01-15 09:30:00', '2014-01-15 10:05:30', '2015-01-30 23:59:59', '2015-07-04 00:00:01');
const COLUMNS: Record<string, readonly [ColumnDataType, readonly (string | number | boolean)[]]> = {
  lastname: T('smith', 'jones', 'smith', 'lee'), state: T('texas', 'california', 'oregon', 'texas'), cost: money, phone: T('555-0100', '555-0101', '555-0102', '555-0103'),
  price: money, shipping: N(5, 0, 12.5, 7), revenue: money, tax: N(12, 64, 3.5, 99), taxrate: N(0.1, 0.2, 0.1, 0.05), markup: N(20, 40, 5, 90), 'retail price': money,
  width: N(2, 3, 4, 5), city: T('San Francisco', 'Austin', 'Portland', 'San Francisco'), product: T('tea', 'coffee', 'tea', 'cocoa'), region: T('west', 'east', 'west', 'south'),
  'order date': day, campaign: T('spring', 'fall', 'spring', 'winter'), 'ship mode': T('air', 'sea', 'air', 'road'), date: day, 'customer region': T('west', 'east', 'west', 'north'),
  supplier: T('acme', 'globex', 'acme', 'initech'), sales: money, complaints: N(1, 4, 0, 2), 'store name': T('north', 'south', 'east', 'west'), defects: N(3, 1, 2, 5),
  customer: T('ann', 'bob', 'ann', 'cy'), married: ['BOOL', [true, false, true, false]], date_sold: T('2014-01-15', '2014-03-02', '2015-01-30', '2015-07-04'),
  invoiced: day, invoiced_date: day, 'home visit': moment, clicked: moment, submitted: DT('2014-01-15 09:00:00', '2014-01-14 10:05:30', '2015-01-30 23:00:00', '2015-07-03 23:59:00'),
  received: moment, shipped: day, sold: day, joined: day, 'call began': moment, 'date ordered': day, color: T('red', 'blue', 'red', 'green'),
  'q1 revenue': money, 'q2 revenue': N(100, 700, 30, 1000), start_latitude: N(47.45, 37.62, 45.59, 30.19), start_longitude: N(-122.31, -122.38, -122.6, -97.67),
  end_latitude: N(40.64, 33.94, 47.45, 41.98), end_longitude: N(-73.78, -118.41, -122.31, -87.9), title: T('Dr', 'Ms', 'Mr', 'Mx'), first_name: T('Ann', 'Bob', 'Cy', 'Di'), last_name: T('Smith', 'Jones', 'Lee', 'Ng'),
  // the passthrough examples' columns
  is_delivered: ['BOOL', [true, true, false, true]], itemCount: N(1, 2, 3, 4), orderdate: day, ship_date: day, delivery_time: moment, sale_time: moment, unrealised_gain: money, sale_volume: N(10, 20, 30, 40), username: T('ann', 'bob', 'cy', 'di'),
};
/** `ifnull (cost, 'unknown')` takes a text cost where `if (cost > 500)` takes a number: its own type for that example. */
const OVERRIDES: Record<string, Record<string, readonly [ColumnDataType, readonly (string | number | boolean)[]]>> = { ifnull: { cost: T('12', '640', 'n/a', '990') } };
const REFUSED = [[/^sql_/, /runs SQL on the data warehouse: the emulator does not run it/], [/^similar/, /is not run by the emulator/]] as const;

let db: DuckDBInstance;
let conn: DuckDBConnection;
before(async () => {
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  for (const [table, cols] of [['ex', COLUMNS], ...Object.entries(OVERRIDES).map(([f, o]) => [`ex_${f}`, { ...COLUMNS, ...o }] as const)] as const) {
    const names = Object.keys(cols);
    const literal = (v: string | number | boolean, type: ColumnDataType): string => (typeof v === 'string' ? `CAST('${v}' AS ${DUCKDB_TYPE[type]})` : String(v));
    const rows = [0, 1, 2, 3].map((i) => `(${names.map((n) => literal(cols[n]![1][i]!, cols[n]![0])).join(', ')})`);
    await conn.run(`CREATE TABLE "${table}" (${names.map((n) => `"${n}" ${DUCKDB_TYPE[cols[n]![0]]}`).join(', ')}); INSERT INTO "${table}" VALUES ${rows.join(', ')}`);
  }
});
after(() => {
  conn?.closeSync();
  db?.closeSync();
});

/** The table of an example as the emulator's data source: each column of its type, numbers measures summed. */
function source(fn: string): LogicalTable {
  const table = fn in OVERRIDES ? `ex_${fn}` : 'ex';
  const cols = { ...COLUMNS, ...OVERRIDES[fn] };
  const header = { id: table, name: table, author: 'a', created: 0, modified: 0, modifiedBy: 'a', tags: [], sharedWith: [], isAutoCreated: false };
  return {
    ...header, subtype: 'ONE_TO_ONE_LOGICAL', tableId: table, database: 'd', schema: 's', tableName: table, sqlName: `"${table}"`,
    columns: Object.entries(cols).map(([name, [dataType]]) => ({ id: name, name, dataType, kind: dataType === 'DOUBLE' ? 'MEASURE' : 'ATTRIBUTE', aggregation: dataType === 'DOUBLE' ? 'SUM' : 'NONE', synonyms: [], physicalName: name })),
  };
}

/**
 * The formula an example documents: the whole example for an operator or mixed function, else the left
 * side of a stated result (a ` = ` outside parentheses: `sum_if (region = 'west', revenue)` states none).
 */
function documented(f: (typeof FORMULA_FUNCTIONS)[number]): string {
  let depth = 0;
  let at = -1;
  for (let i = 0; i < f.example.length; i++) {
    depth += f.example[i] === '(' ? 1 : f.example[i] === ')' ? -1 : 0;
    if (depth === 0 && f.example.startsWith(' = ', i)) at = i;
  }
  return at < 0 || f.category === 'operator' || f.category === 'mixed' ? f.example : f.example.slice(0, at);
}

test('every catalogue entry documents an example', () => {
  assert.deepEqual(FORMULA_FUNCTIONS.filter((f) => !f.example.trim()).map((f) => f.name), []);
});

for (const f of FORMULA_FUNCTIONS) {
  const expr = documented(f);
  test(`${f.name}: ${expr}`, async () => {
    const refused = REFUSED.find(([name]) => name.test(f.name))?.[1];
    const ds = source(f.name);
    const run = async (): Promise<{ rows: unknown[][]; width: number }> => {
      const withF = withFormulaColumns(ds, [{ id: 'formula_F', name: 'F', expr }]);
      const column = withF.columns.find((c) => c.name === 'F')!;
      // an aggregating formula per region; a window also by the attributes it orders by (the search's groups)
      const attributes = column.formula!.aggregate ? ['region', ...(f.aggregation === 'window' ? [...formulaNodes(parseFormula(expr).ast)].flatMap((n) => (n.kind === 'column' && ds.columns.find((c) => c.name === n.name)?.kind === 'ATTRIBUTE' ? [n.name] : [])) : [])] : [];
      const query = `${attributes.map((a) => `[${a}] `).join('')}[F]`;
      const compiled = compileSearch({ clauses: parseQuery(query).query!.clauses, columns: withF.columns, table: ds.sqlName, now: new Date('2015-06-15T12:00:00Z') });
      return { rows: (await conn.runAndReadAll(compiled.sql, [...compiled.params])).getRows() as unknown[][], width: attributes.length + 1 };
    };
    if (refused) {
      await assert.rejects(run, refused);
      return;
    }
    const { rows, width } = await run();
    assert.ok(rows.length > 0, 'it gives rows');
    assert.ok(rows.every((r) => r.length === width), `each row of ${width} columns: ${rows.map((r) => r.length).join(", ")}`);
  });
}
