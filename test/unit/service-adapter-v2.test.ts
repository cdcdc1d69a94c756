// The extension's service adapter (client/src/serviceAdapter.ts) against a service where v1 is gone: the
// tree's object lists, the columns completion and diagnostics read, and Run query's search all answer,
// with a connection that leaves apiVersion at its default (auto).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createService } from '../../client/src/serviceAdapter';
import { startLive, type Live } from '../emulator/client-support';

let live: Live;
before(async () => {
  live = await startLive({ options: { publicApi: 'v2' } });
});
after(async () => live?.stop());

test('tree, columns and search over REST API v2 with the default apiVersion', async () => {
  const service = createService({ url: live.emu.url, username: 'analyst' }, () => 'analyst');
  try {
    await service.login();
    const tables = await service.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 });
    const flights = tables.find((t) => t.name === 'flights');
    assert.ok(flights, tables.map((t) => t.name).join());
    const [details] = (await service.metadataDetails('LOGICAL_TABLE', [flights.id])).storables;
    assert.ok(details!.columns!.some((c) => c.header.name === 'origin'));
    const boards = await service.listObjectHeaders({ type: 'PINBOARD_ANSWER_BOOK' });
    assert.ok(boards.length > 0);
    assert.equal((await service.listVizHeaders(boards[0]!.id)).length > 0, true);
    const r = await service.searchData({ queryString: '[origin] [delay] top 5', dataSourceGuid: flights.id, batchSize: 5 });
    assert.equal(r.data.length, 5);
  } finally {
    await service.logout();
  }
});
