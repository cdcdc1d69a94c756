// The demo workspace that `npm start` opens (test/fixtures/demo-workspace/) must work on the demo
// data: every query of every .tsq file is valid for the language service with the demo catalog and
// answers through searchdata without error, and the saved load definition loads the CSV into its demo
// table with no bad records, after which the stocks query over the loaded months answers them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ServiceCatalog } from '../../common/src/catalog';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { CatalogProvider } from '../../common/src/languageService/types';
import type { DataSource } from '../../common/src/model';
import type { AnalyticsServiceClient, LoadDefinition } from '../../common/src/api';
import { runLoad } from '../../common/src/load/pipeline';
import { startLive, countRows, type Live } from './client-support';

const WORKSPACE = join(__dirname, '..', 'fixtures', 'demo-workspace');
const tsqFiles = readdirSync(WORKSPACE).filter((f) => f.endsWith('.tsq')).sort();

let live: Live;
let admin: AnalyticsServiceClient;
/** Data sources of the demo by name (LOGICAL_TABLE headers). */
let byName: Map<string, string>;

before(async () => {
  live = await startLive();
  admin = live.client();
  const headers = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE' });
  byName = new Map(headers.map((h) => [h.name, h.id]));
});
after(async () => {
  await live?.stop();
});

/** A catalog over the live emulator, as the extension answers the server's catalog requests. */
function liveCatalog(): CatalogProvider {
  const resolve = (ds: string): string | undefined => byName.get(ds) ?? ([...byName.values()].includes(ds) ? ds : undefined);
  return {
    async getDataSources() {
      const worksheets = new Set((await admin.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: ['WORKSHEET'] })).map((h) => h.id));
      const headers = await admin.listObjectHeaders({ type: 'LOGICAL_TABLE' });
      return headers.map((h): DataSource => ({ id: h.id, name: h.name, type: worksheets.has(h.id) ? 'WORKSHEET' : 'ONE_TO_ONE_LOGICAL' }));
    },
    async getColumns(ds) {
      const id = resolve(ds);
      return id ? new ServiceCatalog(admin).columns(id) : null;
    },
    async getColumnValues() {
      return [];
    },
  };
}

/** The queries of a demo file, each with the data source in force. */
function queriesOf(file: string) {
  const doc = TextDocument.create(`file:///demo/${file}`, 'tsq', 1, readFileSync(join(WORKSPACE, file), 'utf8'));
  return { doc, queries: getLanguageService().getQueries(doc) };
}

test('the demo workspace holds several .tsq files, a CSV and its saved load definition', () => {
  assert.ok(tsqFiles.length >= 3, `only ${tsqFiles.join(', ')}`);
  const names = readdirSync(WORKSPACE);
  for (const csv of names.filter((n) => n.endsWith('.csv'))) assert.ok(names.includes(`${csv}.load.json`), `${csv} has no saved .load.json`);
  assert.ok(names.some((n) => n.endsWith('.csv')));
});

test('the demo catalog is really consulted: an unknown column is reported', async () => {
  const doc = TextDocument.create('file:///demo/control.tsq', 'tsq', 1, "@datasource 'flights'\n[origin] [no such column]\n");
  const diagnostics = await getLanguageService({ catalog: liveCatalog() }).doValidation(doc);
  assert.ok(diagnostics.some((d) => String(d.message).includes('no such column')), JSON.stringify(diagnostics));
});

for (const file of tsqFiles) {
  test(`${file}: no diagnostics with the demo catalog`, async () => {
    const { doc } = queriesOf(file);
    const diagnostics = await getLanguageService({ catalog: liveCatalog() }).doValidation(doc);
    assert.deepEqual(diagnostics.map((d) => `${d.range.start.line + 1}: ${d.message}`), []);
  });

  test(`${file}: every query answers through searchdata`, async () => {
    const { queries } = queriesOf(file);
    assert.ok(queries.length > 0, 'no queries');
    for (const q of queries) {
      assert.ok(q.dataSource, `no data source for ${q.text}`);
      const guid = byName.get(q.dataSource!);
      assert.ok(guid, `data source ${q.dataSource} is not in the demo`);
      const answer = await admin.searchData({ queryString: q.text, dataSourceGuid: guid! });
      assert.ok(answer.columnNames.length > 0, `no columns for ${q.text}`);
      assert.ok(answer.data.length > 0 || file === 'stocks.tsq', `no rows for ${q.text}`);
    }
  });
}

test('the saved load definition loads the demo CSV into its table with no bad records', async () => {
  const csvs = readdirSync(WORKSPACE).filter((n) => n.endsWith('.csv'));
  for (const csv of csvs) {
    const definition = JSON.parse(readFileSync(join(WORKSPACE, `${csv}.load.json`), 'utf8')) as LoadDefinition;
    const t = definition.target;
    const sqlName = `"${t.database}.${t.schema ?? 'engine_default_schema'}"."${t.table}"`;
    const rowsBefore = await countRows(live, sqlName);
    const lines = readFileSync(join(WORKSPACE, csv), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
    const expected = lines - (definition.format?.has_header_row ? 1 : 0);
    const result = await runLoad(admin, { stream: createReadStream(join(WORKSPACE, csv)) }, definition);
    assert.equal(result.status.ignoredRowCount, 0, JSON.stringify(result.status.raw));
    assert.equal(result.status.rowsWritten, expected);
    assert.equal(await countRows(live, sqlName), rowsBefore + expected);
  }
  // the query over the loaded months answers them (it answers nothing before the load)
  const { queries } = queriesOf('stocks.tsq');
  const after = queries.find((q) => q.text.includes('2010-04-01'));
  assert.ok(after, 'stocks.tsq lost its query over the loaded months');
  const answer = await admin.searchData({ queryString: after!.text, dataSourceGuid: byName.get('stocks')! });
  assert.ok(answer.data.length >= 9, `only ${answer.data.length} rows after the load`);
});
