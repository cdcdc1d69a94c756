// The answers kept for paging on a model (emulator/src/searchdata/run.ts) depend on each of its tables: a
// load that commits into the joined table (airports) drops them, so the pages after it are the new data's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stableGuid } from '../../emulator/src/guid';
import { runLoad } from '../../common/src/load/pipeline';
import { startLive } from './client-support';

const MODEL = stableGuid('worksheet', 'Flights Model');
const QUERY = "[Origin City] [Destination State] [Distance] [Origin State] = 'WA'";

test('a load into a table of the model drops its kept answers: every page then reads the new rows', async (t) => {
  const live = await startLive();
  t.after(() => live.stop());
  const admin = live.client();
  const pages = async (): Promise<unknown[][]> => {
    const rows: unknown[][] = [];
    for await (const p of admin.searchAllPages({ queryString: QUERY, dataSourceGuid: MODEL, pageSize: 5 })) rows.push(...(p.data as unknown[][]));
    return rows;
  };
  const before = await pages();
  assert.ok(before.length > 5, 'several pages: the answer is kept for them');
  assert.ok(!before.some((r) => r[0] === 'Testville'));
  // a second airport row for SEA: its flights join both, under both cities
  await runLoad(admin, { data: 'SEA,Test Field,Testville,WA,USA,47.4,-122.3\n' }, { target: { database: 'demo', table: 'airports' }, format: { type: 'CSV', has_header_row: false } });
  const after = await pages();
  const seattle = before.filter((r) => r[0] === 'Seattle');
  assert.deepEqual(after.filter((r) => r[0] === 'Testville').map((r) => r.slice(1)), seattle.map((r) => r.slice(1)), 'Testville has the SEA flights Seattle has');
  assert.equal(after.length, before.length + seattle.length);
});
