// The commit's DuckDB fast path (emulator/src/load/fastpath.ts) against the exact JS path
// (records.ts + convert.ts + commit.ts) on a real DuckDB database: whenever the fast path loads a set of
// records, the table must hold exactly what the JS path would have loaded; when the data has anything
// the JS path rejects, the fast path must fail (so the caller falls back).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { TableInfo } from '../../emulator/src/context';
import { stageChunks, TableLoad } from '../../emulator/src/load/commit';
import { parseLoadDefinition, type LoadDefinition } from '../../emulator/src/load/definition';
import { chunksAreFastPathSafe, fastPathSql, strictDateSql, strictGlob, strictPattern } from '../../emulator/src/load/fastpath';

let dir: string;
let db: DuckDBInstance;
let conn: DuckDBConnection;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tsq-fastpath-'));
  db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
});
after(() => {
  conn?.closeSync();
  db?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const COLUMNS: TableInfo['columns'] = [
  { name: 'i64', dataType: 'INT64' },
  { name: 'i32', dataType: 'INT32' },
  { name: 'txt', dataType: 'VARCHAR' },
  { name: 'flag', dataType: 'BOOL' },
  { name: 'f', dataType: 'FLOAT' },
  { name: 'd', dataType: 'DOUBLE' },
  { name: 'day', dataType: 'DATE' },
  { name: 'ts', dataType: 'DATE_TIME' },
  { name: 't', dataType: 'TIME' },
];
const SQL_TYPES = ['BIGINT', 'INTEGER', 'VARCHAR', 'BOOLEAN', 'FLOAT', 'DOUBLE', 'DATE', 'TIMESTAMP', 'TIME'];

function table(name: string): TableInfo {
  return { id: name, database: 'db', schema: 's', name, sqlName: `"${name}"`, columns: COLUMNS };
}

async function createTable(name: string): Promise<void> {
  await conn.run(`CREATE OR REPLACE TABLE "${name}" (${COLUMNS.map((c, i) => `"${c.name}" ${SQL_TYPES[i]}`).join(', ')})`);
}

async function contents(name: string): Promise<string> {
  const r = await conn.runAndReadAll(`SELECT ${COLUMNS.map((c) => `"${c.name}"::VARCHAR`).join(', ')} FROM "${name}" ORDER BY ALL`);
  return JSON.stringify(r.getRows());
}

/** Field texts per column: [canonical ones, ones only the JS path may read (or must reject)]. */
const VALUES: [string[], string[]][] = [
  [['1', '-42', '9007199254740993', ''], ['+7', '007', ' 5', '1.5', '-0', 'x']],
  [['0', '2147483647', '-2147483648', ''], ['2147483648', '+1', '1e3', ' 3 ']],
  [['plain', '', 'a,b', 'quote"inside', 'line\nbreak', 'é😀', '(null)', ' spaced '], ['""']],
  [['T', 'F', 't', 'f', ''], ['true', ' T', 'yes']],
  [['1.5', '-0.25', '1e10', '.5', '5.', ''], ['1e39', 'inf', 'nan', '1,5', ' 1']],
  [['2.25', '-1e300', ''], ['1e400', 'Infinity', '0x10', '1_000']],
  [['20240131', '20240229', ''], ['20230229', '2024131', '00000101', '2024-01-31', ' 20240131']],
  [['20240131 01:02:03', '19991231 23:59:59', ''], ['20240131 24:00:00', '20240131 1:02:03', '20240131 01:02:03.5', '20240131  01:02:03']],
  [['01:02:03', '23:59:59', ''], ['24:00:00', '1:02:03', '01:02:03.25', '01:02']],
];

/** Writes records as csv (fields enclosed when needed; an empty string is enclosed only when `quoteEmpty`). */
function csvText(rows: string[][], quoteEmpty: boolean[][]): string {
  return rows
    .map((r, ri) => r.map((v, ci) => (/[",\n\r]/.test(v) || (v === '' && quoteEmpty[ri]?.[ci]) ? `"${v.replace(/"/g, '""')}"` : v)).join(','))
    .join('\n') + '\n';
}

/** Loads `text` through the JS path into `slow`; returns the ignored row count. */
async function loadSlow(def: LoadDefinition, file: string): Promise<number> {
  await createTable('slow');
  const load = await TableLoad.begin(conn, table('slow'), false);
  const r = await stageChunks([file], def, table('slow'), (k) => join(dir, `part-${k}.csv`), join(dir, 'bad'), async (part) => load.add(part));
  if (r.ignored > 0) {
    await load.rollback();
    return r.ignored;
  }
  await load.commit();
  return 0;
}

/** Loads `text` through the fast path into `fast`; false when the statement failed (rolled back). */
async function loadFast(def: LoadDefinition, file: string): Promise<boolean> {
  await createTable('fast');
  const sql = fastPathSql(def, table('fast'), [file]);
  assert.ok(sql, 'this definition is inside the fast path subset');
  if (!(await chunksAreFastPathSafe([file], false))) return false;
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run(sql);
    await conn.run('COMMIT');
    return true;
  } catch {
    await conn.run('ROLLBACK');
    return false;
  }
}

const DEF = parseLoadDefinition({ target: { database: 'db', table: 't' }, format: { date_time: { converted_to_epoch: false, date_time_format: '%Y%m%d %H:%M:%S' } } });

/** Runs the fast/JS comparison on random sets of records built from `values` and written by `write`. */
async function compare(def: LoadDefinition, values: [string[], string[]][], write: (rows: string[][], quoteEmpty: boolean[][]) => string): Promise<void> {
  const row = fc.tuple(...values.map(([good, odd]) => fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 30 }, { arbitrary: fc.constantFrom(...odd), weight: 1 })));
  let fastLoads = 0;
  let rejected = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(row, fc.array(fc.boolean(), { minLength: 9, maxLength: 9 })), { minLength: 1, maxLength: 5 }), async (records) => {
      const file = join(dir, 'chunk.csv');
      writeFileSync(file, write(records.map((r) => [...r[0]]), records.map((r) => r[1])));
      const ignored = await loadSlow(def, file);
      const fastOk = await loadFast(def, file);
      if (ignored > 0) {
        rejected++;
        assert.equal(fastOk, false, 'the fast path must not load data the JS path rejects');
        return;
      }
      if (fastOk) {
        fastLoads++;
        assert.equal(await contents('fast'), await contents('slow'));
      }
    }),
    { numRuns: 150 },
  );
  assert.ok(fastLoads > 5, `the fast path loaded some sets (${fastLoads})`);
  assert.ok(rejected > 5, `some sets had rows to reject (${rejected})`);
}

test('property (csv, strptime formats): when the fast path loads records, the table equals what the JS path loads; when the JS path rejects any, the fast path fails', async () => {
  await compare(DEF, VALUES, csvText);
});

test('property (csv, epoch dates): the same with converted_to_epoch', async () => {
  const values = VALUES.map((v) => v);
  values[6] = [['0', '86400', '-86400', '1700000000', ''], ['1.5', '+5', '99999999999999', '-62135596801', '2024-01-01', '007']];
  values[7] = [['0', '1700000000', '253402300799', '-62135596800', ''], ['1700000000.25', '253402300800', ' 1', 'x']];
  await compare(parseLoadDefinition({ target: { database: 'db', table: 't' }, format: { date_time: { converted_to_epoch: true } } }), values, csvText);
});

test('property (delimited, null_value): the same for the delimited format', async () => {
  const def = parseLoadDefinition({ target: { database: 'db', table: 't' }, format: { type: 'delimited', field_separator: '|', null_value: 'NULL', date_time: { converted_to_epoch: false } } });
  const values = VALUES.map(([good, odd]) => [good.filter((v) => !v.includes('\n')).concat(['NULL']), odd] as [string[], string[]]);
  await compare(def, values, (rows) => rows.map((r) => r.join('|')).join('\n') + '\n');
});

test('canonical data always takes the fast path', async () => {
  const file = join(dir, 'canonical.csv');
  writeFileSync(file, '1,2,a,T,1.5,2.5,20240131,20240131 01:02:03,01:02:03\n2,,"",F,,,,,\n');
  assert.equal(await loadSlow(DEF, file), 0);
  assert.equal(await loadFast(DEF, file), true);
  assert.equal(await contents('fast'), await contents('slow'));
});

test('definitions outside the subset have no fast path', () => {
  const t = table('x');
  const off = (format: Record<string, unknown>) => fastPathSql(parseLoadDefinition({ target: { database: 'd', table: 't' }, format }), t, ['a']);
  assert.ok(off({}));
  assert.equal(off({ flexible: true }), undefined);
  assert.equal(off({ trailing_field_separator: true }), undefined);
  assert.equal(off({ type: 'delimited', escape_character: '\\' }), undefined);
  assert.equal(off({ field_separator: '§' }), undefined);
  assert.equal(off({ enclosing_character: '' }), undefined);
  assert.equal(off({ date_time: { converted_to_epoch: false, date_format: '%d %b %Y' } }), undefined);
  assert.equal(fastPathSql(parseLoadDefinition({ target: { database: 'd', table: 't' } }), { ...t, columns: [{ name: 'only', dataType: 'VARCHAR' }] }, ['a']), undefined, 'one column');
  assert.equal(strictPattern('%Y-%m-%d %H:%M:%S'), '[0-9]{4}\\-(?:0[1-9]|1[0-2])\\-(?:0[1-9]|[12][0-9]|3[01]) (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]');
});

test('the cheap date check accepts exactly what the strftime round trip accepts (months 00–19, days 00–39, hours 00–29)', async () => {
  const years = [0, 1, 2, 99, 999, 1000, 1582, 1899, 1900, 1999, 2000, 2023, 2024, 2100, 9999];
  for (const fmt of ['%Y%m%d %H:%M:%S', '%Y-%m-%d %H:%M:%S', '%Y%m%d', '%Y-%m-%d', '%d/%m/%Y %H:%M', '%m.%d.%Y', '%H:%M:%S %Y%m%d']) {
    const read = strictDateSql('c', 'v', fmt);
    assert.ok(read, fmt);
    const text = [['%Y', 'yy'], ['%m', 'mm'], ['%d', 'dd'], ['%H', 'hh'], ['%M', 'mi'], ['%S', 'ss']].reduce((e, [d, col]) => `replace(${e}, '${d}', ${col})`, `'${fmt}'`);
    const r = await conn.runAndReadAll(
      `WITH g AS (SELECT lpad(y::VARCHAR, 4, '0') AS yy, lpad(m::VARCHAR, 2, '0') AS mm, lpad(d::VARCHAR, 2, '0') AS dd, lpad(h::VARCHAR, 2, '0') AS hh, lpad(mi::VARCHAR, 2, '0') AS mi, lpad(mi::VARCHAR, 2, '0') AS ss ` +
        `FROM (VALUES ${years.map((y) => `(${y})`).join(', ')}) ys(y), range(0, 20) ms(m), range(0, 40) ds(d), range(0, 30) hs(h), (VALUES (0), (59)) mis(mi) WHERE h IN (0, 23) OR (y = 2024 AND m = 2)), ` +
        `t AS (SELECT ${text} AS c FROM g), u AS (SELECT c, try_strptime(c, '${fmt}') AS rt, ${read.pre} AS v FROM t) ` +
        `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE coalesce(strftime(rt, '${fmt}') = c AND year(rt) >= 1, false))::INTEGER AS ok, ` +
        `(list(c) FILTER (WHERE coalesce(strftime(rt, '${fmt}') = c AND year(rt) >= 1, false) <> coalesce(${read.ok}, false)))[1:5] AS differ FROM u`,
    );
    const [n, ok, differ] = r.getRows()[0] as [number, number, { items: string[] } | null];
    assert.ok(ok > 1000 && ok < n, `${fmt}: the grid has texts to accept and to reject (${ok} of ${n})`);
    assert.deepEqual(differ?.items ?? [], [], `${fmt}: texts the two checks judge differently`);
  }
  assert.equal(strictGlob('%Y%m%d %H:%M:%S'), '[0-9][0-9][0-9][0-9][01][0-9][0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]');
  assert.equal(strictGlob('%Y %Y'), undefined, 'a directive twice: the round trip decides');
  assert.equal(strictGlob('%Y%%'), undefined);
});

test('chunks with a byte-order mark or a lone carriage return are not fast-path safe', async () => {
  const f = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  assert.equal(await chunksAreFastPathSafe([f('ok', 'a,b\r\nc,d\n')], false), true);
  assert.equal(await chunksAreFastPathSafe([f('bom', '\uFEFFa,b\n')], false), false);
  assert.equal(await chunksAreFastPathSafe([f('cr', 'a,b\rc,d\n')], false), false);
  assert.equal(await chunksAreFastPathSafe([f('crend', 'a,b\r')], false), false);
  assert.equal(await chunksAreFastPathSafe([f('blankhead', '\na,b\n')], true), false);
});

test('a header row repeated at the start of every chunk takes the fast path and loads what the JS path loads', async () => {
  const def = parseLoadDefinition({ target: { database: 'db', table: 't' }, format: { has_header_row: true, date_time: { converted_to_epoch: false, date_time_format: '%Y%m%d %H:%M:%S' } } });
  const header = `${COLUMNS.map((c) => c.name).join(',')}\n`;
  const rows = ['1,2,a,T,1.5,2.5,20240131,20240131 01:02:03,01:02:03\n', '2,,"x\ny",F,,,,,\n', '3,4,b,F,,,,,\n'];
  const chunks = [header + rows[0]!, header + rows[1]!, header + rows[2]!].map((text, k) => {
    const p = join(dir, `head-${k}.csv`);
    writeFileSync(p, text);
    return p;
  });
  assert.equal(await chunksAreFastPathSafe(chunks, true), true);
  // the JS path, over the same chunks
  await createTable('slow');
  const load = await TableLoad.begin(conn, table('slow'), false);
  const r = await stageChunks(chunks, def, table('slow'), (k) => join(dir, `hpart-${k}.csv`), join(dir, 'hbad'), async (part) => load.add(part));
  assert.equal(r.ignored, 0);
  await load.commit();
  await createTable('fast');
  const sql = fastPathSql(def, table('fast'), chunks);
  assert.ok(sql);
  await conn.run(sql);
  assert.equal(await contents('fast'), await contents('slow'));
  assert.equal(JSON.parse(await contents('fast')).length, 3);
});

test('a header row not repeated exactly in every chunk is not fast-path safe', async () => {
  const f = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const a = f('h1', 'x,y\n1,2\n');
  assert.equal(await chunksAreFastPathSafe([a, f('h2', 'x,y\n3,4\n')], true), true);
  assert.equal(await chunksAreFastPathSafe([a, f('h3', '3,4\n5,6\n')], true), false, 'a later chunk without the header: its first line is data');
  assert.equal(await chunksAreFastPathSafe([a, f('h4', 'x,y\r\n3,4\n')], true), false, 'another line end');
  assert.equal(await chunksAreFastPathSafe([f('h5', '"x",y\n1,2\n'), f('h6', '"x",y\n3,4\n')], true), false, 'a quoted header');
  assert.equal(await chunksAreFastPathSafe([a, f('h7', 'x,y')], true), false, 'a header without its line end');
});
