// End-to-end loads through the client (common/src/api) against a live emulator on an ephemeral port:
// the whole cycle of docs/service-interface.md §3 on demo data, every error row of docs/service-interface.md §7 that an emulator can
// produce, every format option of docs/service-interface.md §2.2, atomicity, two cycles at once, persistence across a
// restart, and SQL injection through load targets and values. Table contents are checked straight in
// the emulator's DuckDB database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthenticationError,
  LoadFailedError,
  NotFoundError,
  PermissionError,
  ServiceError,
  AnalyticsServiceClient,
  type LoadDefinition,
} from '../../common/src/api';
import { LoadError, runLoad } from '../../common/src/load/pipeline';
import { ADMIN, ANALYST, FLIGHTS_SQL, countRows, startLive, type Live } from './client-support';

const TYPED = '"test.engine_default_schema"."typed"';
const PAIRS = '"test.engine_default_schema"."pairs"';
const OTHER = '"test.engine_default_schema"."other"';

const tables = [
  {
    name: 'typed',
    database: 'test',
    columns: [
      { name: 'id', dataType: 'INT64' },
      { name: 'name', dataType: 'VARCHAR' },
      { name: 'flag', dataType: 'BOOL' },
      { name: 'amount', dataType: 'DOUBLE' },
      { name: 'day', dataType: 'DATE' },
      { name: 'ts', dataType: 'DATE_TIME' },
      { name: 't', dataType: 'TIME' },
    ],
  },
  { name: 'pairs', database: 'test', columns: [{ name: 'k', dataType: 'INT32' }, { name: 'v', dataType: 'VARCHAR' }] },
  { name: 'other', database: 'test', columns: [{ name: 'k', dataType: 'INT32' }, { name: 'v', dataType: 'VARCHAR' }] },
];

let live: Live;
let admin: AnalyticsServiceClient;

before(async () => {
  live = await startLive({ tables });
  admin = live.client();
});
after(async () => {
  await live?.stop();
});

const pairs = (extra: Partial<LoadDefinition> = {}): LoadDefinition => ({ target: { database: 'test', table: 'pairs' }, ...extra });

async function resetPairs(): Promise<void> {
  await live.sql(`DELETE FROM ${PAIRS}`);
}

async function pairRows(sqlName = PAIRS): Promise<[number, string | null][]> {
  return (await live.sql(`SELECT k, v FROM ${sqlName} ORDER BY k`)).map((r) => [Number(r.k), r.v as string | null]);
}

/** Loads `csv` into a table with the given format and load options; returns the final status. */
async function loadText(def: LoadDefinition, csv: string | Buffer) {
  const { cycleId } = await admin.startLoad(def);
  await admin.uploadChunk(cycleId, Readable.from([Buffer.from(csv)]));
  await admin.commitLoad(cycleId);
  return { cycleId, status: await admin.pollLoadStatus(cycleId, { intervalMs: 20 }) };
}

test('done-criterion: a demo CSV loads through the client in chunks, commits, polls to DONE and is queried back through searchdata', async () => {
  // a CSV of 30,000 flights made from the demo table itself, loaded back into it (append)
  const before = await countRows(live, FLIGHTS_SQL);
  const rows = await live.sql(`SELECT strftime("date", '%Y%m%d %H:%M:%S') AS d, delay, distance, origin, destination FROM ${FLIGHTS_SQL} ORDER BY "date", origin, destination, delay LIMIT 30000`);
  const csv = rows.map((r) => `${r.d},${r.delay},${r.distance},${r.origin},ZZZ\n`).join('');
  const file = join(live.dataDir, 'flights-part.csv');
  writeFileSync(file, 'date,delay,distance,origin,destination\n' + csv);
  const progress: number[] = [];
  const result = await runLoad(
    admin,
    { stream: createReadStream(file, { highWaterMark: 16 * 1024 }) },
    { target: { database: 'demo', table: 'flights' }, format: { type: 'CSV', has_header_row: true, date_time: { converted_to_epoch: false } } },
    { chunkBytes: 256 * 1024, pollIntervalMs: 20, progressIntervalMs: 0, onProgress: (p) => progress.push(p.chunks) },
  );
  assert.ok(result.chunks >= 3, `uploaded in ${result.chunks} chunks`);
  assert.deepEqual([...new Set(progress)], Array.from({ length: result.chunks + 1 }, (_, i) => i), 'progress counts every chunk, in order');
  assert.equal(result.status.internalStage, 'DONE');
  assert.equal(result.status.status.code ?? 'OK', 'OK');
  assert.equal(result.status.rowsWritten, 30000);
  assert.equal(result.status.ignoredRowCount, 0);
  assert.equal(await countRows(live, FLIGHTS_SQL), before + 30000);
  const flights = (await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'flights' })).find((h) => h.name === 'flights');
  assert.ok(flights, 'the flights table is listed');
  const answer = await admin.searchData({ queryString: "[destination] [distance] [destination] = 'ZZZ'", dataSourceGuid: flights.id });
  const [direct] = await live.sql(`SELECT sum(distance)::BIGINT AS s FROM ${FLIGHTS_SQL} WHERE destination = 'ZZZ'`);
  assert.equal(answer.rowCount, 1);
  assert.equal(answer.data[0][0], 'ZZZ');
  assert.equal(Number(answer.data[0][1]), Number(direct.s));
  // leave the demo table as it was for the other tests
  await live.sql(`DELETE FROM ${FLIGHTS_SQL} WHERE destination = 'ZZZ'`);
});

test('every load endpoint answers as documented: ping, status, input summary, bad records, abort', async () => {
  await resetPairs();
  assert.match(await admin.ping(), /Ping Received/);
  const { cycleId } = await admin.startLoad(pairs({ load_options: { max_ignored_rows: 5 } }));
  assert.match(await admin.uploadChunk(cycleId, '1,a\nnot-a-number,b\n3,c\n'), /Upload Complete/);
  assert.match(await admin.commitLoad(cycleId), /Commit load cycle request made/);
  const st = await admin.pollLoadStatus(cycleId, { intervalMs: 20 });
  assert.equal(st.rowsWritten, 2);
  assert.equal(st.ignoredRowCount, 1);
  assert.match(await admin.badRecords(cycleId), /not-a-number,b/);
  const summary = await admin.inputSummary(cycleId);
  assert.equal((summary.load_params as LoadDefinition).target.table, 'pairs');
  assert.deepEqual(await pairRows(), [[1, 'a'], [3, 'c']]);
  const second = await admin.startLoad(pairs());
  await admin.uploadChunk(second.cycleId, '9,z\n');
  await admin.abortLoad(second.cycleId);
  assert.deepEqual(await pairRows(), [[1, 'a'], [3, 'c']], 'an aborted cycle changes nothing');
});

test('docs/service-interface.md §7: 401 for a wrong password on Login and for load calls without a session', async () => {
  const wrong = live.client({ username: 'tsadmin', password: 'not-the-password' });
  await assert.rejects(wrong.startLoad(pairs()), (e: unknown) => e instanceof AuthenticationError && e.status === 401 && e.operation === 'loadLogin' && /Unable to verify user\. Please login again\./.test(e.serviceMessage));
  // a session cookie the service does not know is refused on every load operation
  for (const [method, path] of [
    ['POST', '/ts_dataservice/v1/public/loads'],
    ['POST', '/ts_dataservice/v1/public/loads/x'],
    ['POST', '/ts_dataservice/v1/public/loads/x/commit'],
    ['POST', '/ts_dataservice/v1/public/loads/x/cancel'],
    ['GET', '/ts_dataservice/v1/public/loads/x'],
    ['GET', '/ts_dataservice/v1/public/loads/x/bad_records_file'],
  ] as const) {
    const r = await fetch(live.emu.url + path, { method, headers: { cookie: 'JSESSIONID=forged', 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
    assert.equal(r.status, 401, `${method} ${path}`);
    assert.equal((await r.text()).trim(), 'Unable to verify user. Please login again.');
  }
});

test('docs/service-interface.md §7: 403 for a user without the data-management privilege, on every load operation but Login', async () => {
  const analyst = live.client(ANALYST);
  await assert.rejects(analyst.startLoad(pairs()), (e: unknown) => e instanceof PermissionError && e.status === 403 && e.serviceMessage === 'User does not have required privileges. Please contact your administrator.');
  const { cycleId } = await admin.startLoad(pairs());
  await assert.rejects(analyst.uploadChunk(cycleId, '1,a\n'), PermissionError);
  await assert.rejects(analyst.commitLoad(cycleId), PermissionError);
  await assert.rejects(analyst.loadStatus(cycleId), PermissionError);
  await assert.rejects(analyst.abortLoad(cycleId), PermissionError);
  await admin.abortLoad(cycleId);
});

test('docs/service-interface.md §7: 400 for an invalid load definition, naming the request body', async () => {
  for (const bad of [{}, { target: { database: 'test' } }, { target: { database: 'test', table: 'pairs' }, format: { type: 'parquet-ish' } }, { target: { database: 'test', table: 'pairs' }, load_options: { max_ignored_rows: 'many' } }, { target: { database: 'test', table: 'pairs' }, format: { field_separator: ';;' } }]) {
    await assert.rejects(admin.startLoad(bad as LoadDefinition), (e: unknown) => {
      assert.ok(e instanceof ServiceError, String(e));
      assert.equal(e.status, 400, JSON.stringify(bad));
      assert.match(e.serviceMessage, /^Invalid input params for starting data load: Request body/);
      return true;
    });
  }
});

test('docs/service-interface.md §7: a target table that does not exist is refused with "Unable to find table in the engine. Cannot load data."', async () => {
  const attempt = async () => {
    const { cycleId } = await admin.startLoad({ target: { database: 'test', table: 'no_such_table' } });
    await admin.uploadChunk(cycleId, '1,a\n');
  };
  await assert.rejects(attempt(), (e: unknown) => e instanceof ServiceError && e.status === 400 && e.serviceMessage === 'Unable to find table in the engine. Cannot load data.');
});

test('a large chunk refused at once (unknown cycle, absent table) gives the service text, not a broken connection', async () => {
  const big = () => Readable.from((function* () {
    for (let i = 0; i < 400; i++) yield Buffer.alloc(64 * 1024, 0x31);
  })());
  await assert.rejects(admin.uploadChunk('no-such-cycle', big()), (e: unknown) => e instanceof NotFoundError && e.serviceMessage === 'Cycle_id=[no-such-cycle] does not exist.');
  const { cycleId } = await admin.startLoad({ target: { database: 'test', table: 'no_such_table' } });
  await assert.rejects(admin.uploadChunk(cycleId, big()), (e: unknown) => e instanceof ServiceError && e.serviceMessage === 'Unable to find table in the engine. Cannot load data.');
});

test('docs/service-interface.md §7: an unknown cycle is 400 on Load, 500 on CommitLoad, and a missing bad records file is 500', async () => {
  await assert.rejects(admin.uploadChunk('no-such-cycle', '1,a\n'), (e: unknown) => e instanceof NotFoundError && e.status === 400 && e.serviceMessage === 'Cycle_id=[no-such-cycle] does not exist.');
  await assert.rejects(admin.commitLoad('no-such-cycle'), (e: unknown) => e instanceof NotFoundError && e.status === 500 && e.serviceMessage === "Commit load cycle failed. Error ending load. Unknown cycle_id 'no-such-cycle'");
  await assert.rejects(admin.badRecords('no-such-cycle'), (e: unknown) => e instanceof NotFoundError && e.status === 500 && e.serviceMessage === 'Node does not exist: /tmp/no-such-cycle.bad_record');
  // a cycle without rejected rows has no bad records file either
  await resetPairs();
  const { cycleId } = await loadText(pairs(), '1,a\n');
  await assert.rejects(admin.badRecords(cycleId), (e: unknown) => e instanceof NotFoundError && e.serviceMessage === `Node does not exist: /tmp/${cycleId}.bad_record`);
});

test('format: csv defaults — comma, double-quote enclosing, quoted separators, line breaks and doubled quotes; no header', async () => {
  await resetPairs();
  await loadText(pairs(), '1,"a, b"\n2,"line\nbreak"\n3,"say ""hi"""\n4,plain\n');
  assert.deepEqual(await pairRows(), [[1, 'a, b'], [2, 'line\nbreak'], [3, 'say "hi"'], [4, 'plain']]);
});

test('format: field_separator, enclosing_character, trailing_field_separator and has_header_row', async () => {
  await resetPairs();
  await loadText(pairs({ format: { field_separator: '|', enclosing_character: "'", trailing_field_separator: true, has_header_row: true } }), "k|v|\n1|'x|y'|\n2|plain|\n");
  assert.deepEqual(await pairRows(), [[1, 'x|y'], [2, 'plain']]);
  await resetPairs();
  await loadText(pairs({ format: { field_separator: '\t' } }), '5\ttab,sep\n');
  assert.deepEqual(await pairRows(), [[5, 'tab,sep']]);
});

test('format: delimited — escape_character and null_value apply; enclosing does not', async () => {
  await resetPairs();
  await loadText(pairs({ format: { type: 'DELIMITED', field_separator: ',', escape_character: '\\', null_value: 'NULL' } }), '1,a\\,b\n2,NULL\n3,"q"\n4,(null)\n');
  assert.deepEqual(await pairRows(), [[1, 'a,b'], [2, null], [3, '"q"'], [4, '(null)']]);
  await resetPairs();
  await loadText(pairs({ format: { type: 'delimited' } }), '1,(null)\n');
  assert.deepEqual(await pairRows(), [[1, null]], 'the default null_value is (null)');
});

test('format: flexible drops extra columns and fills missing ones with nulls; without it such rows are rejected', async () => {
  await resetPairs();
  await loadText(pairs({ format: { flexible: true } }), '1,a,extra,more\n2\n');
  assert.deepEqual(await pairRows(), [[1, 'a'], [2, null]]);
  await resetPairs();
  const { status } = await loadText(pairs({ load_options: { max_ignored_rows: 10 } }), '1,a,extra\n2\n3,c\n');
  assert.equal(status.ignoredRowCount, 2);
  assert.deepEqual(await pairRows(), [[3, 'c']]);
});

test('format: date_time formats with converted_to_epoch false, skip_second_fraction, and epoch values when it is true', async () => {
  await live.sql(`DELETE FROM ${TYPED}`);
  const def = (dt: NonNullable<LoadDefinition['format']>['date_time']): LoadDefinition => ({ target: { database: 'test', table: 'typed' }, format: { date_time: dt } });
  await loadText(def({ converted_to_epoch: false }), '1,a,T,1.5,20010305,20010305 14:30:00,08:15:00\n');
  await loadText(def({ converted_to_epoch: false, date_format: '%d/%m/%Y', date_time_format: '%Y-%m-%dT%H:%M:%S', time_format: '%H.%M.%S' }), '2,b,F,2.5,05/03/2001,2001-03-05T14:30:00,08.15.00\n');
  await loadText(def({ converted_to_epoch: false, date_time_format: '%Y-%m-%d %H:%M:%S', skip_second_fraction: true }), '3,c,T,3.5,20010305,2001-03-05 14:30:00.987654,08:15:00\n');
  const rows = await live.sql(`SELECT id, strftime(day, '%Y-%m-%d') AS day, strftime(ts, '%Y-%m-%d %H:%M:%S.%f') AS ts, t::VARCHAR AS t FROM ${TYPED} ORDER BY id`);
  assert.deepEqual(rows, [
    { id: 1, day: '2001-03-05', ts: '2001-03-05 14:30:00.000000', t: '08:15:00' },
    { id: 2, day: '2001-03-05', ts: '2001-03-05 14:30:00.000000', t: '08:15:00' },
    { id: 3, day: '2001-03-05', ts: '2001-03-05 14:30:00.000000', t: '08:15:00' },
  ]);
  // converted_to_epoch true: the date-time field holds epoch seconds
  await live.sql(`DELETE FROM ${TYPED}`);
  await loadText({ target: { database: 'test', table: 'typed' }, format: { date_time: { converted_to_epoch: true } } }, `4,d,T,4.5,,${Date.UTC(2001, 2, 5, 14, 30) / 1000},\n`);
  const [r] = await live.sql(`SELECT strftime(ts, '%Y-%m-%d %H:%M:%S') AS ts, day FROM ${TYPED}`);
  assert.equal(r.ts, '2001-03-05 14:30:00');
  assert.equal(r.day, null);
});

test('format: boolean true_format/false_format, and a value neither is rejected', async () => {
  await live.sql(`DELETE FROM ${TYPED}`);
  const def: LoadDefinition = { target: { database: 'test', table: 'typed' }, format: { boolean: { true_format: 'yes', false_format: 'no' } }, load_options: { max_ignored_rows: 1 } };
  const { status } = await loadText(def, '1,a,yes,,,,\n2,b,no,,,,\n3,c,T,,,,\n');
  assert.equal(status.ignoredRowCount, 1);
  assert.deepEqual(await live.sql(`SELECT id, flag FROM ${TYPED} ORDER BY id`), [
    { id: 1, flag: true },
    { id: 2, flag: false },
  ]);
  await live.sql(`DELETE FROM ${TYPED}`);
  await loadText({ target: { database: 'test', table: 'typed' } }, '4,d,T,,,,\n5,e,F,,,,\n');
  assert.deepEqual(await live.sql(`SELECT id, flag FROM ${TYPED} ORDER BY id`), [
    { id: 4, flag: true },
    { id: 5, flag: false },
  ]);
});

test('format: boolean use_bit_values reads 0x1 and 0x0', async () => {
  await live.sql(`DELETE FROM ${TYPED}`);
  await loadText({ target: { database: 'test', table: 'typed' }, format: { boolean: { use_bit_values: true } } }, '1,a,0x1,,,,\n2,b,0x0,,,,\n');
  assert.deepEqual(await live.sql(`SELECT id, flag FROM ${TYPED} ORDER BY id`), [
    { id: 1, flag: true },
    { id: 2, flag: false },
  ]);
});

test('node_address: with a separate load port, the cycle moves to that node with a login there', async () => {
  const own = await startLive({ tables, options: { loadPort: 0 } });
  try {
    assert.ok(own.emu.loadUrl);
    const origins: string[] = [];
    // only the main URL is given: StartLoad goes there, its node_address names the load port
    const c = new AnalyticsServiceClient({ url: own.emu.url, ...ADMIN, onRequest: (i) => origins.push(`${i.operation} ${i.origin}`) });
    try {
      const { cycleId, nodeAddress } = await c.startLoad(pairs());
      assert.equal(nodeAddress?.port, Number(new URL(own.emu.loadUrl).port));
      await c.uploadChunk(cycleId, '1,moved\n');
      await c.commitLoad(cycleId);
      await c.pollLoadStatus(cycleId, { intervalMs: 20 });
      const main = new URL(own.emu.url).origin;
      const node = new URL(own.emu.loadUrl).origin;
      assert.deepEqual([...new Set(origins)], [`loadLogin ${main}`, `startLoad ${main}`, `loadLogin ${node}`, `uploadChunk ${node}`, `commitLoad ${node}`, `loadStatus ${node}`]);
      assert.deepEqual((await own.sql(`SELECT k, v FROM ${PAIRS}`)).map((r) => [Number(r.k), r.v]), [[1, 'moved']]);
    } finally {
      await c.close();
    }
  } finally {
    await own.stop();
  }
});

test('load_options: empty_target replaces the rows; the default appends', async () => {
  await resetPairs();
  await loadText(pairs(), '1,a\n');
  await loadText(pairs(), '2,b\n');
  assert.deepEqual(await pairRows(), [[1, 'a'], [2, 'b']]);
  await loadText(pairs({ load_options: { empty_target: true } }), '3,c\n');
  assert.deepEqual(await pairRows(), [[3, 'c']]);
});

test('advanced_options: max_reported_parsing_errors bounds the parsing errors in the status', async () => {
  await resetPairs();
  const bad = Array.from({ length: 12 }, (_, i) => `x${i},bad\n`).join('');
  const { status } = await loadText(pairs({ load_options: { max_ignored_rows: 100 }, advanced_options: { max_reported_parsing_errors: 3 } }), bad + '1,ok\n');
  assert.equal(status.ignoredRowCount, 12);
  assert.ok(Array.isArray(status.parsingErrors), 'parsing_errors is a list');
  assert.equal((status.parsingErrors as unknown[]).length, 3);
  assert.deepEqual(await pairRows(), [[1, 'ok']]);
});

test('atomicity: max_ignored_rows exceeded fails the load with LOAD_FAILED and the table is unchanged', async () => {
  await resetPairs();
  await loadText(pairs(), '1,keep\n');
  const { cycleId } = await admin.startLoad(pairs({ load_options: { max_ignored_rows: 1, empty_target: true } }));
  await admin.uploadChunk(cycleId, '2,new\nbad,1\n');
  await admin.uploadChunk(cycleId, '3,new\nbad,2\n');
  await admin.commitLoad(cycleId);
  await assert.rejects(admin.pollLoadStatus(cycleId, { intervalMs: 20 }), (e: unknown) => e instanceof LoadFailedError && e.loadCode !== 'OK' && e.serviceMessage.length > 0);
  assert.deepEqual(await pairRows(), [[1, 'keep']], 'neither empty_target nor the good rows took effect');
});

test('atomicity: aborting after several chunks, or a cycle never committed, leaves the table unchanged', async () => {
  await resetPairs();
  await loadText(pairs(), '1,keep\n');
  const { cycleId } = await admin.startLoad(pairs({ load_options: { empty_target: true } }));
  for (let i = 0; i < 3; i++) await admin.uploadChunk(cycleId, `${10 + i},chunk\n`);
  await admin.abortLoad(cycleId);
  assert.deepEqual(await pairRows(), [[1, 'keep']]);
  await assert.rejects(admin.commitLoad(cycleId), ServiceError, 'an aborted cycle cannot be committed');
  assert.deepEqual(await pairRows(), [[1, 'keep']]);
  // runLoad aborts the cycle itself when the source fails half-way
  const failing = Readable.from(
    (async function* () {
      yield Buffer.from('20,x\n21,y\n');
      throw new Error('disk went away');
    })(),
  );
  await assert.rejects(runLoad(admin, { stream: failing }, pairs(), { chunkBytes: 4 }), (e: unknown) => e instanceof LoadError && e.kind === 'source' && e.tableUnchanged && /disk went away/.test(e.message));
  assert.deepEqual(await pairRows(), [[1, 'keep']]);
});

test('atomicity: a commit that fails (a row the table cannot take, no rows allowed to be ignored) changes nothing', async () => {
  await resetPairs();
  await loadText(pairs(), '1,keep\n');
  const { cycleId } = await admin.startLoad(pairs());
  await admin.uploadChunk(cycleId, Readable.from([Buffer.from('2,fine\n'), Buffer.from('99999999999,too-big-for-int32\n')]));
  await admin.commitLoad(cycleId);
  await assert.rejects(admin.pollLoadStatus(cycleId, { intervalMs: 20 }), LoadFailedError);
  assert.deepEqual(await pairRows(), [[1, 'keep']]);
});

test('two cycles on different tables at once, interleaved, each gets only its own rows', async () => {
  await resetPairs();
  await live.sql(`DELETE FROM ${OTHER}`);
  const a = await admin.startLoad(pairs());
  const b = await admin.startLoad({ target: { database: 'test', table: 'other' } });
  const other = live.client();
  await Promise.all([admin.uploadChunk(a.cycleId, '1,a1\n'), other.uploadChunk(b.cycleId, '1,b1\n')]);
  await Promise.all([admin.uploadChunk(a.cycleId, '2,a2\n'), other.uploadChunk(b.cycleId, '2,b2\n')]);
  await Promise.all([admin.commitLoad(b.cycleId), admin.commitLoad(a.cycleId)]);
  const [sa, sb] = await Promise.all([admin.pollLoadStatus(a.cycleId, { intervalMs: 20 }), admin.pollLoadStatus(b.cycleId, { intervalMs: 20 })]);
  assert.equal(sa.rowsWritten, 2);
  assert.equal(sb.rowsWritten, 2);
  assert.deepEqual(await pairRows(), [[1, 'a1'], [2, 'a2']]);
  assert.deepEqual(await pairRows(OTHER), [[1, 'b1'], [2, 'b2']]);
});

test('SQL injection: target names and values are data, never SQL', async () => {
  await resetPairs();
  const hostile = [`pairs"; DROP TABLE ${PAIRS}; --`, "pairs' OR '1'='1", 'pairs;DELETE FROM pairs'];
  for (const table of hostile) {
    await assert.rejects(
      (async () => {
        const { cycleId } = await admin.startLoad({ target: { database: 'test', table } });
        await admin.uploadChunk(cycleId, '1,a\n');
      })(),
      (e: unknown) => e instanceof ServiceError && e.status === 400,
    );
  }
  await assert.rejects(admin.startLoad({ target: { database: 'test"; DROP SCHEMA "test.engine_default_schema" CASCADE; --', table: 'pairs' } }).then((r) => admin.uploadChunk(r.cycleId, '1\n')), ServiceError);
  const values = ["'); DROP TABLE pairs; --", 'Robert"); DELETE FROM "test.engine_default_schema"."pairs"; --', '$1', '\\x27'];
  await loadText(pairs(), values.map((v, i) => `${i},"${v.replace(/"/g, '""')}"\n`).join(''));
  assert.deepEqual(await pairRows(), values.map((v, i) => [i, v]));
  assert.equal(await countRows(live, PAIRS), values.length, 'the table is still there with exactly the loaded rows');
});

test('persistence: committed rows, and nothing of an uncommitted cycle, survive a restart', async () => {
  const own = await startLive({ tables });
  try {
    const c = own.client(ADMIN);
    const { cycleId } = await c.startLoad(pairs());
    await c.uploadChunk(cycleId, '7,kept\n8,kept\n');
    await c.commitLoad(cycleId);
    await c.pollLoadStatus(cycleId, { intervalMs: 20 });
    const pending = await c.startLoad(pairs());
    await c.uploadChunk(pending.cycleId, '9,never-committed\n');
    await own.stop(true);
    const again = await startLive({ tables, dataDir: own.dataDir });
    try {
      const rows = (await again.sql(`SELECT k, v FROM ${PAIRS} ORDER BY k`)).map((r) => [Number(r.k), r.v]);
      assert.deepEqual(rows, [[7, 'kept'], [8, 'kept']]);
      const c2 = again.client(ADMIN);
      const st = await c2.loadStatus(cycleId);
      assert.equal(st.internalStage, 'DONE', 'the status of a finished cycle is still there');
      assert.equal(st.rowsWritten, 2);
    } finally {
      await again.stop(true);
    }
  } finally {
    (await import('node:fs')).rmSync(own.dataDir, { recursive: true, force: true });
  }
});
