// `tsq load` into input tables, the built command line against an emulator modelled on ThoughtSpot
// Cloud (REST API v2 only, no data-load API): a new input table created on a model with its key
// column, a re-run of the same file giving the same rows, the auto-chosen path with --table, a refused
// batch named, a bad file, an unknown column and a value outside allowed_values; rows read through
// searchdata. A real file (vega-datasets seattle-weather.csv) into an input table linked to a model, its rows
// read through searchdata on the model and computed from the file. And --help saying what differs from the data-load API; load_csv of `tsq mcp` on the same path.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLive, type Live } from '../emulator/client-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readDataBlocks } from '../../common/src/agent/data';
import { CLI_JS, cleanEnv, tsq } from './cli-support';
import { assertRows } from '../emulator/weather-support';
import { byDate, expectedModelRows, MODEL_QUERY, MODEL_TML, WEATHER_CSV, WEATHER_LOG_CREATE, withCell } from '../emulator/weather-log-support';

const V2 = '/api/rest/2.0';
let live: Live;
let dir: string;
let conn: string[];
let token: string;
const env = { TSQ_PASSWORD: 'admin' };

async function v2(path: string, body: unknown): Promise<any> {
  const r = await fetch(`${live.emu.url}${V2}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await r.text();
  assert.ok(r.ok, `${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The rows of a query over the data source named `name`, as strings, sorted. */
async function rowsOf(name: string, query: string): Promise<string[][]> {
  const [ds] = await v2('/metadata/search', { metadata: [{ identifier: name, type: 'LOGICAL_TABLE' }] });
  const r = await v2('/searchdata', { query_string: query, logical_table_identifier: ds.metadata_id, record_size: -1 });
  return (r.contents[0].data_rows as unknown[][]).map((row) => row.map(String)).sort((a, b) => a.join().localeCompare(b.join()));
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

before(async () => {
  live = await startLive({ options: { publicApi: 'v2', dataLoadApi: false } });
  dir = mkdtempSync(join(tmpdir(), 'tsq-cli-input-tables-'));
  conn = ['--url', live.emu.url, '--user', 'tsadmin'];
  const r = await fetch(`${live.emu.url}${V2}/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin', validity_time_in_sec: 3600 }) });
  token = ((await r.json()) as { token: string }).token;
});

after(async () => {
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('tsq load into an input table', () => {
  const CSV = 'Origin,target,note\nSEA,1.5,first\nLAX,2,second\n';
  const EXPECTED = [['LAX', 'second', '2'], ['SEA', 'first', '1.5']];

  test('--create-input-table --model --key creates it and loads the file; the same file again gives the same rows', async () => {
    const csv = file('targets.csv', CSV);
    const r = await tsq(['load', csv, '--create-input-table', '--table', 'targets', '--model', 'Flights Worksheet', '--key', 'Origin', '--json', ...conn], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /replaces all its rows/);
    assert.equal(JSON.parse(r.stdout).via, 'inputTable');
    assert.equal(JSON.parse(r.stdout).rowsWritten, 2);
    assert.deepEqual(await rowsOf('targets', '[Origin] [note] [target]'), EXPECTED);
    // on a service without the data-load API, --table alone goes to the input table; its rows are replaced only with --replace
    const unconfirmed = await tsq(['load', csv, '--table', 'demo.targets', ...conn], { env });
    assert.equal(unconfirmed.code, 2, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /replaces all its rows with the file's: run again with --replace to confirm/);
    const again = await tsq(['load', csv, '--table', 'demo.targets', '--replace', ...conn], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /Loaded 2 rows into the input table demo\.targets \([0-9a-f-]{36}; batch 1 of 1/);
    assert.deepEqual(await rowsOf('targets', '[Origin] [note] [target]'), EXPECTED);
  });

  test('a bad file, an unknown column, a missing key column: refused before anything is sent; the rows stay', async () => {
    const cases: [string[], RegExp][] = [
      [['load', file('bad.csv', 'Origin,target\nSEA,"1.5\n'), '--input-table', 'targets', '--replace'], /not well formed/],
      [['load', file('unknown.csv', 'Origin,budget\nSEA,1\n'), '--input-table', 'targets', '--replace'], /column budget is not in the input table targets/],
      [['load', file('nokey.csv', 'target\n1\n'), '--create-input-table', '--table', 'other', '--model', 'Flights Worksheet', '--key', 'Origin'], /key column Origin is not a column of the file/],
      [['load', file('nomodel.csv', 'Origin\nSEA\n'), '--create-input-table', '--table', 'other'], /needs --model MODEL and --key COLUMN/],
    ];
    for (const [args, message] of cases) {
      const r = await tsq([...args, ...conn], { env });
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, message);
    }
    assert.deepEqual(await rowsOf('targets', '[Origin] [note] [target]'), EXPECTED);
  });

  test('a value outside allowed_values: the batch is named, nothing of it is written', async () => {
    await v2('/input-tables/create', { table_name: 'statuses', model_identifier: 'Flights Worksheet', table_definition: { referenced_columns: ['Origin'], new_columns: [{ name: 'status', data_type: 'VARCHAR', type: 'ATTRIBUTE', allowed_values: ['open', 'closed'] }] } });
    const good = await tsq(['load', file('good.csv', 'Origin,status\nSEA,open\n'), '--input-table', 'statuses', '--replace', ...conn], { env });
    assert.equal(good.code, 0, good.stderr);
    const r = await tsq(['load', file('pending.csv', 'Origin,status\nSEA,closed\nLAX,pending\n'), '--input-table', 'statuses', '--replace', ...conn], { env });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Batch 1 of 1 \(records 2–3\) into the input table statuses was refused: .*"pending" is not one of its allowed_values.*Nothing of it was written/);
    assert.deepEqual(await rowsOf('statuses', '[Origin] [status]'), [['SEA', 'open']]);
  });

  test('--help says what differs from the data-load API', async () => {
    const r = await tsq(['load', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--create-input-table/);
    assert.match(r.stdout.replace(/\s+/g, ' '), /one update that replaces all its rows: the file is sent as one batch/);
  });
});

describe('tsq load of a real file into an input table linked to a model (vega-datasets seattle-weather.csv)', () => {
  let model: string;
  const modelRows = async (): Promise<unknown[][]> => byDate((await v2('/searchdata', { query_string: MODEL_QUERY, logical_table_identifier: model, record_size: -1 })).contents[0].data_rows);
  const load = (csv: string) => tsq(['load', csv, '--input-table', 'weather_log', '--replace', '--json', ...conn], { env });

  before(async () => {
    const [imported] = await v2('/metadata/tml/import', { metadata_tmls: [MODEL_TML] });
    model = imported.response.header.id_guid;
    await v2('/input-tables/create', WEATHER_LOG_CREATE);
  });

  test('the file loads; a search of the model gives the rows computed from the file', async () => {
    const r = await load(WEATHER_CSV);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).rowsWritten, 1461);
    assertRows(await modelRows(), expectedModelRows());
  });

  test('the same file again gives the same rows, none twice', async () => {
    const r = await load(WEATHER_CSV);
    assert.equal(r.code, 0, r.stderr);
    assertRows(await modelRows(), expectedModelRows());
  });

  test('one bad record: a value the column cannot take is named by its record, one outside allowed_values refuses the batch named by its records; the rows stay', async () => {
    const notNumber = await load(file('seattle-calm.csv', withCell(100, 'wind', 'calm')));
    assert.notEqual(notNumber.code, 0);
    assert.match(notNumber.stderr, /Record 100, column wind: .*calm.*Nothing was sent/);
    const hail = await load(file('seattle-hail.csv', withCell(100, 'weather', 'hail')));
    assert.notEqual(hail.code, 0);
    assert.match(hail.stderr, /Batch 1 of 1 \(records 2–1462\) into the input table weather_log was refused: .*"hail" is not one of its allowed_values.*Nothing of it was written/);
    assertRows(await modelRows(), expectedModelRows());
  });
});

describe('load_csv of tsq mcp into an input table', () => {
  test('refused without "replace": true (the update replaces every row), loaded with it', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp', ...conn, '--allow-writes'], env: cleanEnv(env) as Record<string, string>, cwd: dir, stderr: 'pipe' });
    const client = new Client({ name: 'tsq-test-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      const csv = file('agent.csv', 'Origin,note,target\nBOS,agent,9\n');
      const text = async (args: Record<string, unknown>) => {
        const r = await client.callTool({ name: 'load_csv', arguments: args });
        return { isError: r.isError === true, text: (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n') };
      };
      const refused = await text({ path: csv, table: 'demo.targets' });
      assert.equal(refused.isError, true, refused.text);
      assert.match(readDataBlocks(refused.text).join('\n'), /replaces all its rows with the file's: call load_csv again with "replace": true only if the user asked/);
      const loaded = await text({ path: csv, table: 'demo.targets', replace: true });
      assert.equal(loaded.isError, false, loaded.text);
      assert.deepEqual(await rowsOf('targets', '[Origin] [note] [target]'), [['BOS', 'agent', '9']]);
    } finally {
      await client.close();
    }
  });
});
