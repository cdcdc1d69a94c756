/**
 * Shape checks of the catalog answers the server receives from the client (server/src/protocolCatalog.ts):
 * a malformed answer must read as "unknown" (undefined), never as an empty catalog that would turn every
 * column into a false "unknown column". The request path itself (budget, cancellation, caching,
 * MethodNotFound) is tested against the built server in test/protocol/robustness.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCalendars, parseColumnValues, parseDataSourceColumns, parseDataSources } from '../../server/src/protocolCatalog';
import { carsCatalog, flightsCatalog } from '../fixtures/catalogs';

test('tsq/columns: a well-formed answer is kept, null means the data source does not exist', () => {
  const flights = flightsCatalog();
  const answer = { id: flights.id, name: flights.name, columns: flights.columns };
  assert.deepEqual(parseDataSourceColumns(JSON.parse(JSON.stringify(answer))), answer);
  assert.equal(parseDataSourceColumns(null), null);
  const cars = carsCatalog();
  const withNulls = { id: cars.id, name: cars.name, columns: cars.columns.map((c) => ({ ...c, description: null, synonyms: null })) };
  assert.deepEqual(parseDataSourceColumns(withNulls)?.columns.map((c) => c.name), cars.columns.map((c) => c.name), 'null optional fields are accepted and dropped');
});

test('tsq/columns: any malformed part makes the whole answer unknown', () => {
  const flights = flightsCatalog();
  const good = { id: flights.id, name: flights.name, columns: flights.columns };
  const bad: unknown[] = [
    undefined, 'Flights', 42, [], {}, { ...good, id: 7 }, { ...good, name: undefined }, { ...good, columns: 'x' },
    { ...good, columns: [...good.columns, null] },
    { ...good, columns: [{ ...good.columns[0], dataType: 'TIMESTAMP' }] },
    { ...good, columns: [{ ...good.columns[0], kind: 'DIMENSION' }] },
    { ...good, columns: [{ ...good.columns[0], name: '' }] },
    { ...good, columns: [{ ...good.columns[0], synonyms: ['a', 1] }] },
  ];
  for (const value of bad) assert.equal(parseDataSourceColumns(value), undefined, JSON.stringify(value)?.slice(0, 120));
});

test('tsq/dataSources: an array of { id, name, type }, anything else unknown', () => {
  assert.deepEqual(parseDataSources([{ id: 'g1', name: 'Flights', type: 'WORKSHEET', extra: true }]), [{ id: 'g1', name: 'Flights', type: 'WORKSHEET' }]);
  assert.deepEqual(parseDataSources([]), []);
  for (const value of [null, {}, 'x', [{ id: 'g1', name: 'Flights' }], [null]]) assert.equal(parseDataSources(value), undefined);
});

test('tsq/columnValues: strings only, at most 50', () => {
  const many = Array.from({ length: 80 }, (_, i) => `v${i}`);
  assert.deepEqual(parseColumnValues(many), many.slice(0, 50));
  assert.equal(parseColumnValues(['a', 1]), undefined);
  assert.equal(parseColumnValues(null), undefined);
});

test('tsq/calendars: strings only, blank names dropped, at most 1,000', () => {
  assert.deepEqual(parseCalendars(['retail', ' ', 'Fiscal 4-4-5']), ['retail', 'Fiscal 4-4-5']);
  assert.equal(parseCalendars(Array.from({ length: 1500 }, (_, i) => `c${i}`))?.length, 1000);
  for (const value of [null, {}, 'retail', ['retail', 1]]) assert.equal(parseCalendars(value), undefined);
});
