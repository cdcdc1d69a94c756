// A model column's table path, from metadata/details `sources` (catalog/columns.ts) through `tsq/columns`
// (protocolSchemas.ts) to the lookup of `[path::column]` (languageService/tablePaths.ts): malformed or
// partial sources give no path; on a model a path names only its own columns; without paths,
// `[x::column]` is the column of that name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnsFromDetails } from '../../common/src/catalog';
import { checkDataSourceColumnsAnswer } from '../../common/src/protocolSchemas';
import { findColumnByName, pathCompletion } from '../../common/src/languageService/tablePaths';
import type { DetailsColumn } from '../../common/src/api';

const detail = (name: string, sources?: unknown): DetailsColumn => ({ header: { id: `id-${name}`, name }, dataType: 'VARCHAR', type: 'ATTRIBUTE', ...(sources === undefined ? {} : { sources }) });

test('columnsFromDetails reads the first source with tablePathId and columnName, nothing else', () => {
  const cols = columnsFromDetails([
    detail('Destination City', [{ tableId: 't', tableName: 'airports', columnId: 'c', columnName: 'city', tablePathId: 'airports_2' }]),
    detail('Origin City', [{ tableId: 't', tableName: 'airports', columnName: 'city' }]),
    detail('Odd', ['airports_1::city']),
    detail('Plain'),
  ]);
  assert.deepEqual(cols.map((c) => [c.name, c.tablePath, c.sourceColumn]), [['Destination City', 'airports_2', 'city'], ['Origin City', undefined, undefined], ['Odd', undefined, undefined], ['Plain', undefined, undefined]]);
});

test('tsq/columns keeps tablePath and sourceColumn together, or neither', () => {
  const r = checkDataSourceColumnsAnswer({ id: 'm', name: 'M', columns: [
    { name: 'A', dataType: 'VARCHAR', kind: 'ATTRIBUTE', tablePath: 'p_1', sourceColumn: 'a' },
    { name: 'B', dataType: 'VARCHAR', kind: 'ATTRIBUTE', tablePath: 'p_1' },
  ] });
  assert.ok(r.ok);
  assert.deepEqual(r.value!.columns.map((c) => [c.tablePath, c.sourceColumn]), [['p_1', 'a'], [undefined, undefined]]);
  assert.equal(checkDataSourceColumnsAnswer({ id: 'm', name: 'M', columns: [{ name: 'A', dataType: 'VARCHAR', kind: 'ATTRIBUTE', tablePath: 3 }] }).ok, false);
});

test('[path::column]: the model column of that path, any case; nothing on a model for a wrong path; the name without paths', () => {
  const model = [
    { name: 'Origin City', dataType: 'VARCHAR', kind: 'ATTRIBUTE', tablePath: 'airports_1', sourceColumn: 'city' },
    { name: 'Destination City', dataType: 'VARCHAR', kind: 'ATTRIBUTE', tablePath: 'airports_2', sourceColumn: 'city' },
    { name: 'city', dataType: 'VARCHAR', kind: 'ATTRIBUTE' },
  ] as const;
  assert.equal(findColumnByName(model, ' Airports_2 :: CITY ')?.name, 'Destination City');
  assert.equal(findColumnByName(model, 'airports_9::city'), undefined);
  assert.equal(findColumnByName(model, 'Destination City')?.name, 'Destination City');
  const table = [{ name: 'origin', dataType: 'VARCHAR', kind: 'ATTRIBUTE' }] as const;
  assert.equal(findColumnByName(table, 'anything::origin')?.name, 'origin');
  assert.deepEqual(pathCompletion(model, 'AIRPORTS_1::ci')?.columns.map((c) => c.name), ['city']);
  assert.equal(pathCompletion(model, 'ci'), undefined);
  assert.equal(pathCompletion(table, 'x::o'), undefined);
});
