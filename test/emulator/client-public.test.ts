// The public API (docs/service-interface.md §4.2) through the client (common/src/api) against a live emulator with the demo
// data: every endpoint, searchdata answers checked against the same question asked of DuckDB directly,
// paging and formats, and SQL-injection attempts through values and column names.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { type AnalyticsServiceClient, AuthenticationError, PermissionError, ServiceError, type ObjectHeader } from '../../common/src/api';
import { ServiceCatalog } from '../../common/src/catalog';
import { ANALYST, FLIGHTS_SQL, countRows, startLive, type Live } from './client-support';
import { DEMO_QUERIES, MORE_QUERIES } from './client-queries';

let live: Live;
let admin: AnalyticsServiceClient;
let flights: ObjectHeader;

before(async () => {
  live = await startLive();
  admin = live.client();
  const tables = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE' });
  flights = tables.find((h) => h.name === 'flights')!;
  assert.ok(flights, 'the demo has a flights table');
});
after(async () => {
  await live?.stop();
});

/** Rows with numbers normalized (DuckDB sums are bigints or decimals; the service sends JSON numbers). */
function norm(rows: unknown[][]): unknown[][] {
  return rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : v)));
}
const sortRows = (rows: unknown[][]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

test('session: login, a wrong password is 401, logout ends the session', async () => {
  const c = live.client();
  await c.login();
  assert.ok((await c.listObjectHeaders()).length > 0);
  await c.logout();
  const bad = live.client({ username: 'tsadmin', password: 'nope' });
  await assert.rejects(bad.login(), (e: unknown) => e instanceof AuthenticationError && e.status === 401 && e.operation === 'login');
  // the public API refuses a call without a session
  const r = await fetch(`${live.emu.url}/callosum/v1/tspublic/v1/metadata/listobjectheaders`, { headers: { 'x-requested-by': 'ThoughtSpot' } });
  assert.equal(r.status, 401);
});

test('listobjectheaders: headers of docs/service-interface.md §2.4 and every parameter has its effect', async () => {
  const all = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE' });
  for (const h of all) {
    assert.equal(typeof h.id, 'string');
    assert.equal(typeof h.name, 'string');
    assert.equal(typeof h.created, 'number');
    assert.equal(typeof h.modified, 'number');
    assert.equal(typeof h.isAutoCreated, 'boolean');
    assert.equal(typeof h.isAutoDelete, 'boolean');
  }
  const names = all.map((h) => h.name);
  for (const n of ['flights', 'cars', 'movies', 'Flights Worksheet']) assert.ok(names.includes(n), n);
  const worksheets = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: ['WORKSHEET'] });
  // the demo's worksheet and its model (a model is a LOGICAL_TABLE of subtype WORKSHEET too)
  assert.deepEqual(worksheets.map((h) => h.name).sort(), ['Flights Model', 'Flights Worksheet']);
  const sorted = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', sort: 'NAME', sortAscending: true });
  assert.deepEqual(sorted.map((h) => h.name), [...sorted.map((h) => h.name)].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  const desc = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', sort: 'NAME', sortAscending: false });
  assert.deepEqual(desc.map((h) => h.name), sorted.map((h) => h.name).reverse());
  const page = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', sort: 'NAME', sortAscending: true, batchSize: 2, offset: 1 });
  assert.deepEqual(page.map((h) => h.name), sorted.slice(1, 3).map((h) => h.name));
  const pattern = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', pattern: 'fli%' });
  assert.deepEqual(pattern.map((h) => h.name).sort(), ['Flights Model', 'Flights Worksheet', 'flights'].sort());
  const fetched = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', fetchIds: [flights.id] });
  assert.deepEqual(fetched.map((h) => h.id), [flights.id]);
  const skipped = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', skipIds: [flights.id] });
  assert.equal(skipped.length, all.length - 1);
  assert.ok(!skipped.some((h) => h.id === flights.id));
  const tagged = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', tagNames: ['weather'] });
  assert.deepEqual(tagged.map((h) => h.name), ['seattle-weather']);
  assert.deepEqual(await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', autoCreated: true }), []);
  const pinboards = await admin.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' });
  assert.deepEqual(pinboards.map((h) => h.name).sort(), ['Flight Delays by Airport', 'Flight Operations', 'Markets and Weather']);
  const mine = await live.client(ANALYST).listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', category: 'MY' });
  assert.deepEqual(mine, [], 'the analyst authored no pinboard');
  const columns = await admin.listObjectHeaders({ type: 'LOGICAL_COLUMN' });
  assert.ok(columns.some((c) => c.name === 'delay' && c.owner === flights.id), 'a column is owned by its table (docs/service-notes.md §3.1)');
});

test('metadata/details: typed columns of a table (through the service catalog)', async () => {
  const cols = await new ServiceCatalog(admin).columns(flights.id);
  assert.ok(cols);
  assert.equal(cols.id, flights.id);
  assert.equal(cols.name, 'flights');
  const byName = Object.fromEntries(cols.columns.map((c) => [c.name, c]));
  assert.equal(byName.date.dataType, 'DATE_TIME');
  assert.equal(byName.delay.dataType, 'INT32');
  assert.equal(byName.delay.kind, 'MEASURE');
  assert.equal(byName.origin.kind, 'ATTRIBUTE');
  assert.deepEqual(byName.origin.synonyms, ['from']);
  const details = await admin.metadataDetails('LOGICAL_TABLE', [flights.id]);
  assert.equal(details.storables[0].header.id, flights.id);
});

test('listvizheaders and pinboarddata: every visualization of a pinboard, paged, COMPACT and FULL', async () => {
  const [pb] = await admin.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK', pattern: 'Flight Operations' });
  const vizzes = await admin.listVizHeaders(pb.id);
  assert.deepEqual(vizzes.map((v) => v.name), ['Total delay by origin, top 10', 'Distance flown per month', 'Average delay by weekday']);
  assert.ok(vizzes.every((v) => v.owner === pb.id));
  const data = await admin.pinboardData({ id: pb.id });
  assert.deepEqual(Object.keys(data).sort(), vizzes.map((v) => v.id).sort());
  const top = data[vizzes[0].id];
  assert.equal(top.name, 'Total delay by origin, top 10');
  assert.equal(top.rowCount, 10);
  const direct = await live.sql(`SELECT origin, sum(delay)::BIGINT AS s FROM ${FLIGHTS_SQL} GROUP BY origin ORDER BY s DESC LIMIT 10`);
  assert.deepEqual(norm(top.data as unknown[][]), norm(direct.map((r) => [r.origin, r.s])));
  const one = await admin.pinboardData({ id: pb.id, vizIds: [vizzes[1].id], batchSize: 5, pageNumber: 2, formatType: 'FULL' });
  assert.deepEqual(Object.keys(one), [vizzes[1].id]);
  const month = one[vizzes[1].id];
  const [months] = await live.sql(`SELECT count(DISTINCT date_trunc('month', "date"))::INTEGER AS n FROM ${FLIGHTS_SQL}`);
  assert.equal(month.totalRowCount, months.n);
  assert.equal(month.rowCount, Math.max(0, Math.min(5, Number(months.n) - 5)));
  assert.equal(month.data.length, month.rowCount);
  assert.ok(month.data.every((r) => !Array.isArray(r) && typeof r === 'object'), 'FULL rows are objects');
});

test('searchdata answers equal the same question asked of DuckDB directly (ten demo queries, a date bucket, an average, a date filter)', async () => {
  for (const q of [...DEMO_QUERIES, ...MORE_QUERIES]) {
    const answer = await admin.searchData({ queryString: q.query, dataSourceGuid: flights.id });
    const direct = (await live.sql(q.sql.replace('$FLIGHTS', FLIGHTS_SQL))).map((r) => Object.values(r));
    assert.equal(answer.columnNames.length, q.columns, `${q.query}: columns ${answer.columnNames}`);
    assert.equal(answer.totalRowCount, direct.length, q.query);
    const got = norm(answer.data as unknown[][]);
    const want = norm(direct);
    if (q.ordered) assert.deepEqual(got, want, q.query);
    else assert.deepEqual(sortRows(got), sortRows(want), q.query);
  }
});

test('searchdata: batchsize and pagenumber page the answer; FULL rows are objects; searchAllPages gets every row', async () => {
  const params = { queryString: '[origin] [delay]', dataSourceGuid: flights.id };
  const whole = await admin.searchData(params);
  assert.ok(whole.totalRowCount > 20);
  const p2 = await admin.searchData({ ...params, batchSize: 10, pageNumber: 2 });
  assert.equal(p2.rowCount, 10);
  assert.equal(p2.totalRowCount, whole.totalRowCount);
  assert.equal(p2.pageSize, 10);
  assert.deepEqual(p2.data, whole.data.slice(10, 20));
  const full = await admin.searchData({ ...params, batchSize: 3, formatType: 'FULL' });
  assert.equal(full.data.length, 3);
  assert.deepEqual(full.data.map((r) => full.columnNames.map((c) => r[c] ?? null)), whole.data.slice(0, 3));
  const pages: unknown[] = [];
  for await (const p of admin.searchAllPages({ ...params, pageSize: 7 })) pages.push(...p.data);
  assert.deepEqual(pages, whole.data);
});

test('searchdata errors: an unknown column, a bad query and an unknown data source are 400 with the service text', async () => {
  for (const [queryString, guid] of [
    ['[no such column]', flights.id],
    ["[origin] = 'unterminated", flights.id],
    ['[origin]', '00000000-0000-0000-0000-000000000000'],
  ]) {
    await assert.rejects(admin.searchData({ queryString, dataSourceGuid: guid }), (e: unknown) => {
      assert.ok(e instanceof ServiceError, String(e));
      assert.equal(e.status, 400, queryString);
      assert.ok(e.serviceMessage.length > 0, 'the service says why');
      return true;
    });
  }
});

test('SQL injection through values and column names is data, never SQL', async () => {
  const before = await countRows(live, FLIGHTS_SQL);
  const values = ["SEA' OR '1'='1", 'SEA"; DROP TABLE flights; --', "'); DELETE FROM flights; --", 'SEA\\', '%', '_EA'];
  for (const v of values) {
    // values cannot contain single quotes (docs/service-interface.md §4.3): either a 400 or an answer with no row, never more
    const q = `[origin] [delay] [origin] = '${v.replace(/'/g, '')}'`;
    try {
      const r = await admin.searchData({ queryString: q, dataSourceGuid: flights.id });
      assert.equal(r.totalRowCount, 0, q);
    } catch (e) {
      assert.ok(e instanceof ServiceError && e.status === 400, `${q}: ${String(e)}`);
    }
  }
  const contains = await admin.searchData({ queryString: "[origin] [origin] contains '%'", dataSourceGuid: flights.id });
  assert.equal(contains.totalRowCount, 0, 'a LIKE wildcard in a value is a literal character');
  for (const col of ['[origin"; DROP TABLE flights; --]', '[origin]]', '["origin"]', "[origin' --]"]) {
    await assert.rejects(admin.searchData({ queryString: `${col} [delay]`, dataSourceGuid: flights.id }), (e: unknown) => e instanceof ServiceError && e.status === 400);
  }
  await assert.rejects(admin.searchData({ queryString: '[origin]', dataSourceGuid: "x' OR '1'='1" }), (e: unknown) => e instanceof ServiceError && e.status === 400);
  assert.equal(await countRows(live, FLIGHTS_SQL), before, 'the table is intact');
});

test('administration: user/list, user/sync, addprivilege/removeprivilege, updatepassword, transfer/ownership, refreshview', async () => {
  const users = (await admin.listPrincipals()) as unknown[];
  assert.ok(Array.isArray(users) && users.length >= 2, 'user/list lists principals');
  assert.ok(JSON.stringify(users).includes('analyst'));
  // user/sync adds a user in Data Managers, who may then load
  await admin.syncPrincipals({
    principals: [{ name: 'loader', displayName: 'Loader', principalTypeEnum: 'LOCAL_USER', groupNames: ['Data Managers'] }],
    applyChanges: true,
    password: 'loader-pw',
  });
  assert.ok(JSON.stringify(await admin.listPrincipals()).includes('loader'));
  const loader = live.client({ username: 'loader', password: 'loader-pw' });
  const { cycleId } = await loader.startLoad({ target: { database: 'demo', table: 'cars' } });
  await loader.abortLoad(cycleId);
  // a privilege granted to a group takes effect at once, and is taken back the same way
  const analyst = live.client(ANALYST);
  await assert.rejects(analyst.startLoad({ target: { database: 'demo', table: 'cars' } }), PermissionError);
  await admin.addGroupPrivilege({ privilege: 'DATAMANAGEMENT', groupNames: ['Analysts'] });
  const c2 = await analyst.startLoad({ target: { database: 'demo', table: 'cars' } });
  await analyst.abortLoad(c2.cycleId);
  await admin.removeGroupPrivilege({ privilege: 'DATAMANAGEMENT', groupNames: ['Analysts'] });
  await assert.rejects(analyst.startLoad({ target: { database: 'demo', table: 'cars' } }), PermissionError);
  // a non-administrator may not grant privileges
  await assert.rejects(analyst.addGroupPrivilege({ privilege: 'DATAMANAGEMENT', groupNames: ['Analysts'] }), (e: unknown) => e instanceof ServiceError && (e.status === 403 || e.status === 401));
  // password change: the new one works, the old one no longer does, and neither is in any error
  await loader.updatePassword({ name: 'loader', currentPassword: 'loader-pw', newPassword: 'loader-pw2' });
  await assert.rejects(live.client({ username: 'loader', password: 'loader-pw' }).login(), AuthenticationError);
  await live.client({ username: 'loader', password: 'loader-pw2' }).login();
  const wrongCurrent = await loader.updatePassword({ name: 'loader', currentPassword: 'bad-current', newPassword: 'x-new-secret' }).then(
    () => assert.fail('a wrong current password is refused'),
    (e: unknown) => e,
  );
  assert.ok(wrongCurrent instanceof ServiceError);
  assert.ok(!`${wrongCurrent.message} ${wrongCurrent.serviceMessage}`.includes('x-new-secret'));
  // ownership: tsadmin's objects go to loader
  const before = (await admin.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' })).map((h) => h.author);
  assert.ok(before.length > 0);
  await admin.transferOwnership({ fromUserName: 'tsadmin', toUserName: 'loader' });
  const after = await admin.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' });
  assert.ok(after.every((h) => h.author !== before[0]), 'no pinboard is authored by tsadmin any more');
  // refreshview of an id that is no materialized view is an error with the service text
  await assert.rejects(admin.refreshMaterializedView('00000000-0000-0000-0000-000000000000'), (e: unknown) => e instanceof ServiceError && e.status >= 400 && e.status < 500);
});
