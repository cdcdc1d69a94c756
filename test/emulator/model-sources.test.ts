// metadata/details of a model lists each column's table column as `sources` (docs/service-notes.md §11):
// the demo's `Flights Model` reads the airports table through two paths, so [Origin City] and
// [Destination City] name the same table column with their own `tablePathId`; a formula column and a
// table's own column have no sources. The same over v1 details and v2 metadata/search include_details.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLive, type Live } from './client-support';
import type { DetailsColumn } from '../../common/src/api';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => {
  await live?.stop();
});

for (const apiVersion of ['v1', 'v2'] as const) {
  test(`a model column's sources name its table path and table column (${apiVersion})`, async () => {
    const c = live.client(undefined, apiVersion === 'v2' ? { apiVersion } : {});
    const tables = await c.listObjectHeaders({ type: 'LOGICAL_TABLE', batchSize: -1 });
    const id = (name: string): string => tables.find((t) => t.name === name)!.id;
    const [model, airports, flights] = (await c.metadataDetails('LOGICAL_TABLE', [id('Flights Model'), id('airports'), id('flights')])).storables;
    const col = (s: typeof model, name: string): DetailsColumn => s!.columns!.find((x) => x.header.name === name)!;
    const city = col(airports, 'city');
    assert.deepEqual(col(model, 'Destination City').sources, [{ tableId: id('airports'), tableName: 'airports', columnId: city.header.id, columnName: 'city', tablePathId: 'airports_2' }]);
    assert.deepEqual(col(model, 'Origin City').sources, [{ tableId: id('airports'), tableName: 'airports', columnId: city.header.id, columnName: 'city', tablePathId: 'airports_1' }]);
    assert.equal(col(model, 'Delayed Share').sources, undefined);
    assert.equal(col(flights, 'origin').sources, undefined);
  });
}
