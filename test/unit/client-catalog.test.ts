/**
 * The extension's catalog and the Objects view's lists against the real emulator (demo seed) through
 * the real `common/src/api` client: data sources by subtype, columns, column values, paging with the
 * seed's offset/batchsize, the name pattern, and errors that are never cached.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/src/app';
import { createServiceCatalog } from '../../client/src/catalog';
import { columnsFromHeaders } from '../../common/src/catalog';
import { createService, type Service } from '../../client/src/serviceAdapter';
import { childrenFetcher, DATA_SOURCE_GROUPS, type ListOptions, type ObjectNode } from '../../client/src/tree/nodes';
import { PagedList } from '../../client/src/tree/paging';
import type { RequestRecord } from '../../common/src/logFormat';

let emulator: RunningEmulator;
let dataDir: string;
let service: Service;
const requests: RequestRecord[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tsq-client-catalog-'));
  emulator = await startEmulator({ port: 0, dataDir, demo: true, now: '2024-06-01T00:00:00Z' });
  service = createService({ url: emulator.url, username: 'tsadmin' }, () => 'admin', (r) => requests.push(r));
});

after(async () => {
  await service?.logout();
  await emulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const options: ListOptions = { sort: 'NAME', sortAscending: true, category: 'ALL', batchSize: 50 };

test('data sources carry their LOGICAL_TABLE subtype and resolve by name (any case) or GUID', async () => {
  const catalog = createServiceCatalog(service);
  const all = await catalog.dataSources();
  const flights = all.find((d) => d.name === 'flights');
  assert.ok(flights, `flights among ${all.map((d) => d.name).join(', ')}`);
  assert.equal(flights.type, 'ONE_TO_ONE_LOGICAL');
  assert.equal(new Set(all.map((d) => d.id)).size, all.length, 'no data source twice');
  assert.equal((await catalog.resolve('FLIGHTS'))?.id, flights.id);
  assert.equal((await catalog.resolve(flights.id))?.name, 'flights');
  assert.equal(await catalog.resolve('no such table'), null);
});

test('columns come typed from metadata/details; an unknown data source answers null', async () => {
  const catalog = createServiceCatalog(service);
  const cols = await catalog.columns('Flights');
  assert.ok(cols);
  const byName = new Map(cols.columns.map((c) => [c.name, c]));
  assert.equal(byName.get('delay')?.dataType, 'INT32');
  assert.equal(byName.get('delay')?.kind, 'MEASURE');
  assert.equal(byName.get('origin')?.kind, 'ATTRIBUTE');
  assert.equal(byName.get('date')?.dataType, 'DATE_TIME');
  assert.deepEqual(byName.get('origin')?.synonyms, ['from']);
  assert.equal(await catalog.columns('nope'), null);
});

test('column values begin with the prefix, case-insensitively, at most 50, and a quote in the prefix answers nothing', async () => {
  const catalog = createServiceCatalog(service);
  const values = await catalog.columnValues('flights', 'origin', 's');
  assert.ok(values.length > 0 && values.length <= 50, `got ${values.length}`);
  for (const v of values) assert.match(v, /^s/i);
  assert.equal(new Set(values).size, values.length);
  const narrower = await catalog.columnValues('flights', 'origin', 'SE');
  assert.ok(narrower.includes('SEA'), JSON.stringify(narrower));
  assert.deepEqual(await catalog.columnValues('flights', 'origin', "O'H"), []);
  assert.deepEqual(await catalog.columnValues('no such table', 'origin', ''), []);
});

test('the extension\'s catalog lists the custom calendars through its service (v2 calendars/search), cached until clear()', async () => {
  const catalog = createServiceCatalog(service);
  requests.length = 0;
  assert.deepEqual(await catalog.calendars(), ['retail']);
  assert.deepEqual(await catalog.calendars(), ['retail']);
  assert.equal(requests.filter((r) => r.path.endsWith('/calendars/search')).length, 1);
  catalog.clear();
  await catalog.calendars();
  assert.equal(requests.filter((r) => r.path.endsWith('/calendars/search')).length, 2);
});

test('answers are cached until clear(): the second ask sends no request', async () => {
  const catalog = createServiceCatalog(service);
  await catalog.columns('flights');
  const n = requests.length;
  await catalog.columns('FLIGHTS');
  await catalog.dataSources();
  assert.equal(requests.length, n);
  catalog.clear();
  await catalog.dataSources();
  assert.ok(requests.length > n);
});

test('a failure is never cached: after a wrong password the next ask goes to the service again', async () => {
  let password = 'wrong';
  const flaky = createService({ url: emulator.url, username: 'tsadmin' }, () => password);
  try {
    const catalog = createServiceCatalog(flaky);
    await assert.rejects(catalog.dataSources(), (e: { status?: number }) => e.status === 401);
    await assert.rejects(catalog.columns('flights'), (e: { status?: number }) => e.status === 401);
    password = 'admin';
    assert.ok((await catalog.dataSources()).some((d) => d.name === 'flights'));
    assert.ok(await catalog.columns('flights'));
  } finally {
    await flaky.logout();
  }
});

/** Loads every page of a node's children through the tree's own PagedList. */
async function loadAll(node: ObjectNode, opts: ListOptions): Promise<ObjectNode[]> {
  const { fetch, batchSize } = childrenFetcher(node, async () => service, async () => createServiceCatalog(service), opts);
  const list = new PagedList(fetch, batchSize, () => undefined);
  list.children();
  for (let i = 0; i < 100; i++) {
    await list.loadMore();
    const entries = list.children();
    if (entries.some((e) => e.kind === 'error')) assert.fail(JSON.stringify(entries));
    if (!entries.some((e) => e.kind === 'loadMore')) break;
  }
  return [...list.loaded];
}

test('tables page with offset and batchsize: small pages give the same objects as one big page, none twice', async () => {
  const tables: ObjectNode = { kind: 'group', key: 'group:tables', group: DATA_SOURCE_GROUPS.find((g) => g.id === 'tables')! };
  const whole = await loadAll(tables, { ...options, batchSize: 1000 });
  const paged = await loadAll(tables, { ...options, batchSize: 2 });
  assert.ok(whole.length >= 3, `${whole.length} tables`);
  assert.deepEqual(paged.map((n) => n.key), whole.map((n) => n.key));
});

test('the filter pattern is applied by the service', async () => {
  const tables: ObjectNode = { kind: 'group', key: 'group:tables', group: DATA_SOURCE_GROUPS.find((g) => g.id === 'tables')! };
  const names = (await loadAll(tables, { ...options, pattern: '%LIGHT%' })).map((n) => (n.kind === 'object' ? n.header.name : ''));
  assert.deepEqual(names, ['flights']);
});

test('a table expands to its columns with data type and kind', async () => {
  const tables: ObjectNode = { kind: 'group', key: 'group:tables', group: DATA_SOURCE_GROUPS.find((g) => g.id === 'tables')! };
  const flights = (await loadAll(tables, options)).find((n) => n.kind === 'object' && n.header.name === 'flights')!;
  const cols = await loadAll(flights, options);
  assert.deepEqual(cols.map((c) => (c.kind === 'column' ? c.column.name : '')).sort(), ['date', 'delay', 'destination', 'distance', 'origin']);
});

test('Users & Groups come from user/list', async () => {
  const principals = await service.listPrincipals();
  assert.ok(principals.some((p) => p.kind === 'USER' && p.name === 'tsadmin'), JSON.stringify(principals.slice(0, 3)));
  assert.ok(principals.some((p) => p.kind === 'GROUP' && p.name === 'Administrator'));
});

test('the LOGICAL_COLUMN headers owned by a data source name its columns (the fallback when details are missing)', async () => {
  const catalog = createServiceCatalog(service);
  const flights = await catalog.resolve('flights');
  assert.ok(flights);
  const headers = await service.listObjectHeaders({ type: 'LOGICAL_COLUMN', batchSize: -1 });
  const names = columnsFromHeaders(headers, flights.id).map((c) => c.name).sort();
  assert.deepEqual(names, ['date', 'delay', 'destination', 'distance', 'origin']);
});
