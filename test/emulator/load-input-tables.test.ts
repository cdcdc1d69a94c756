// The load pipeline's input-table path (common/src/load/inputTable.ts) against an emulator that has
// no data-load API and speaks REST API v2 only, as ThoughtSpot Cloud: `runLoad` chooses the path
// (`loadPathOf`), maps the file's columns onto the input table's, converts its dates and booleans, and
// sends one update; the rows are checked through searchdata. A re-run gives the same rows; a refused
// batch is named and writes nothing; bad files and values are refused before anything is sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCore, type Core } from './core-support';
import { AnalyticsServiceClient } from '../../common/src/api';
import { LoadError, loadPathOf, runLoad } from '../../common/src/load/pipeline';
import type { LoadDefinition } from '../../common/src/api';

let core: Core;
let cloud: AnalyticsServiceClient;
let targetsId = '';

const FORMAT: LoadDefinition['format'] = { type: 'CSV', has_header_row: true, date_time: { converted_to_epoch: false, date_format: '%m/%d/%Y' }, boolean: { true_format: 'yes', false_format: 'no' } };
const definition = (table: string): LoadDefinition => ({ target: { database: 'demo', table }, format: FORMAT });
const csv = (text: string) => ({ data: text, name: 'targets.csv' });

/** The rows of `query` over the data source `id`, as strings, sorted. */
async function rowsOf(id: string, query: string): Promise<string[][]> {
  const r = await cloud.searchData({ queryString: query, dataSourceGuid: id, batchSize: -1 });
  return (r.data as unknown[][]).map((row) => row.map(String)).sort((a, b) => a.join().localeCompare(b.join()));
}

before(async () => {
  core = await startCore({ publicApi: 'v2', dataLoadApi: false });
  cloud = new AnalyticsServiceClient({ url: core.emu.url, username: 'tsadmin', password: 'admin', apiVersion: 'v2' });
  targetsId = await cloud.createInputTable({
    tableName: 'delay_targets',
    model: 'Flights Worksheet',
    referencedColumns: ['Origin'],
    newColumns: [
      { name: 'target', dataType: 'DOUBLE', type: 'MEASURE' },
      { name: 'status', dataType: 'VARCHAR', type: 'ATTRIBUTE', allowedValues: ['open', 'closed'] },
      { name: 'due', dataType: 'DATE', type: 'ATTRIBUTE' },
      { name: 'urgent', dataType: 'BOOL', type: 'ATTRIBUTE' },
    ],
  });
});
after(async () => {
  await cloud?.close();
  await core?.stop();
});

describe('the path', () => {
  test('input tables where the data-load API answers 404 on a v2-only service; the data-load API on v1; an explicit choice wins', async () => {
    assert.equal(await loadPathOf(cloud), 'inputTable');
    assert.equal(await loadPathOf(cloud, { via: 'dataLoad' }), 'dataLoad');
    const software = await startCore();
    const v1 = new AnalyticsServiceClient({ url: software.emu.url, username: 'tsadmin', password: 'admin' });
    const v2 = new AnalyticsServiceClient({ url: software.emu.url, username: 'tsadmin', password: 'admin', apiVersion: 'v2' });
    try {
      assert.equal(await loadPathOf(v1), 'dataLoad');
      assert.equal(await loadPathOf(v2), 'dataLoad', 'a v2 service with a data-load API keeps loading through it');
      assert.equal(await loadPathOf(v1, { inputTable: { id: 'x' } }), 'inputTable');
    } finally {
      await v1.close();
      await v2.close();
      await software.stop();
    }
  });
});

describe('load into an input table', () => {
  const FILE = 'Origin,target,status,due,urgent\nSEA,1.5,open,07/01/2001,yes\nLAX,2,closed,,no\n';

  test('runLoad maps the columns, converts dates and booleans, and writes the rows in one batch; a re-run gives the same rows', async () => {
    const phases: string[] = [];
    const r = await runLoad(cloud, csv(FILE), definition('delay_targets'), { onProgress: (p) => phases.push(p.phase) });
    assert.equal(r.via, 'inputTable');
    assert.equal(r.cycleId, targetsId);
    assert.equal(r.rowsWritten, 2);
    assert.equal(r.chunks, 1);
    assert.deepEqual(phases, ['starting', 'uploading', 'done']);
    // the answer puts attributes before measures
    const expected = [['LAX', 'closed', 'false', '2'], ['SEA', 'open', 'true', '1.5']];
    assert.deepEqual(await rowsOf(targetsId, '[Origin] [target] [status] [urgent]'), expected);
    const due = await rowsOf(targetsId, "[Origin] [due] [Origin] = 'SEA'");
    assert.equal(new Date(Number(due[0]![1]) * 1000).toISOString().slice(0, 10), '2001-07-01', JSON.stringify(due));
    await runLoad(cloud, csv(FILE), definition('delay_targets'));
    assert.deepEqual(await rowsOf(targetsId, '[Origin] [target] [status] [urgent]'), expected, 'the same file again: the same rows');
  });

  test('a value outside allowed_values: the batch is named, nothing of it is written', async () => {
    const err = await runLoad(cloud, csv('Origin,status\nJFK,open\nBOS,pending\n'), definition('delay_targets')).then(
      () => assert.fail('loaded'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof LoadError, String(err));
    assert.equal(err.kind, 'refused');
    assert.ok(err.tableUnchanged);
    assert.match(err.message, /Batch 1 of 1 \(records 2–3\) into the input table delay_targets was refused: .*"pending" is not one of its allowed_values/);
    assert.deepEqual((await rowsOf(targetsId, '[Origin]')).flat(), ['LAX', 'SEA']);
  });

  test('an unknown column, a value that does not fit, a malformed file, an unknown input table: refused before anything is sent', async () => {
    const cases: [string, string, RegExp][] = [
      ['delay_targets', 'Origin,budget\nSEA,1\n', /column budget is not in the input table delay_targets \(its columns: Origin, target, status, due, urgent\)/],
      ['delay_targets', 'Origin,due\nSEA,2001-07-01\n', /Record 2, column due: "2001-07-01" does not match %m\/%d\/%Y/],
      ['delay_targets', 'Origin,target\nSEA,"1.5\n', /not well formed/],
      ['delay_targets', 'Origin,target\nSEA,1,2\n', /Record 2 has 3 fields, not 2/],
      ['no_such_table', 'Origin\nSEA\n', /There is no input table no_such_table/],
    ];
    for (const [table, text, message] of cases) {
      await assert.rejects(runLoad(cloud, csv(text), definition(table)), (e: unknown) => e instanceof LoadError && e.tableUnchanged && message.test(e.message), `${table}: ${text}`);
    }
    assert.deepEqual((await rowsOf(targetsId, '[Origin]')).flat(), ['LAX', 'SEA']);
  });

  test('cancelled before the batch is sent, or a user without DATAMANAGEMENT: nothing is written', async () => {
    await assert.rejects(
      runLoad(cloud, csv('Origin,target\nBOS,1\n'), definition('delay_targets'), { signal: AbortSignal.abort() }),
      (e: unknown) => e instanceof LoadError && e.kind === 'cancelled' && e.tableUnchanged,
    );
    const analyst = new AnalyticsServiceClient({ url: core.emu.url, username: 'analyst', password: 'analyst', apiVersion: 'v2' });
    try {
      await assert.rejects(
        runLoad(analyst, csv('Origin,target\nBOS,1\n'), definition('delay_targets'), { inputTable: { id: targetsId } }),
        (e: unknown) => e instanceof LoadError && (e.kind === 'permission' || e.kind === 'refused') && e.tableUnchanged,
      );
    } finally {
      await analyst.close();
    }
    assert.deepEqual((await rowsOf(targetsId, '[Origin]')).flat(), ['LAX', 'SEA']);
  });

  test('a new input table on a model with key columns: created, its new columns typed from the file, the rows written', async () => {
    const text = 'Destination,planned,note\nSEA,10,first\nSFO,20,second\n';
    const r = await runLoad(cloud, csv(text), definition('planned_flights'), { inputTable: { create: { model: 'Flights Worksheet', keys: ['Destination'] } } });
    assert.equal(r.rowsWritten, 2);
    assert.deepEqual(await rowsOf(r.cycleId, '[Destination] [planned] [note]'), [['SEA', 'first', '10'], ['SFO', 'second', '20']]);
    await assert.rejects(
      runLoad(cloud, csv('planned\n1\n'), definition('other_table'), { inputTable: { create: { model: 'Flights Worksheet', keys: ['Destination'] } } }),
      (e: unknown) => e instanceof LoadError && /key column Destination is not a column of the file/.test(e.message),
    );
  });
});
