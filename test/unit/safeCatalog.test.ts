/**
 * `safeCatalog` (server/src/language/languageService.ts): sanitized answers are memoized per raw answer,
 * so the features see stable objects while the catalog answers from its cache, and new ones when it
 * answers a new object.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { safeCatalog } from '../../server/src/language/languageService';
import type { CatalogProvider } from '../../server/src/language/types';
import { flightsCatalog, wideCatalog } from '../fixtures/catalogs';

/** A catalog answering `current` (a raw object, possibly malformed) and counting calls. */
function rawCatalog(answer: () => unknown, sources: () => unknown = () => []): CatalogProvider & { calls: number } {
  const c = {
    calls: 0,
    getDataSources: async () => sources() as never,
    getColumns: async () => {
      c.calls++;
      return answer() as never;
    },
    getColumnValues: async () => [],
  };
  return c;
}

test('the same raw getColumns answer gives the same sanitized object; a new raw answer a new one', async () => {
  let raw: unknown = wideCatalog(1000);
  const inner = rawCatalog(() => raw);
  const safe = safeCatalog(inner);
  const a = await safe.getColumns('Wide');
  const b = await safe.getColumns('Wide');
  assert.equal(inner.calls, 2, 'the catalog is still asked every time (it owns the caching)');
  assert.ok(a && b);
  assert.equal(a, b);
  assert.equal(a.columns, b.columns);
  assert.equal(a.columns.length, 1000);
  assert.notEqual(a, raw, 'the answer is sanitized, not passed through');
  raw = wideCatalog(1000);
  const c = await safe.getColumns('Wide');
  assert.notEqual(c, a);
  assert.deepEqual(c, a);
});

test('the same columns array wrapped in a new object per call (as the test catalogs do) is memoized too', async () => {
  const wide = wideCatalog(1000);
  const safe = safeCatalog(rawCatalog(() => ({ id: wide.id, name: wide.name, columns: wide.columns })));
  const a = await safe.getColumns('Wide');
  assert.equal(await safe.getColumns('Wide'), a);
  // Another id or name around the same columns: a new answer sharing the sanitized columns.
  const renamed = safeCatalog(rawCatalog(() => ({ id: 'other', name: 'Other', columns: wide.columns })));
  const b = await renamed.getColumns('Other');
  assert.equal(b?.name, 'Other');
  assert.equal(b?.columns.length, 1000);
});

test('memoized answers are still sanitized: malformed columns dropped, missing name taken from the question', async () => {
  const raw = { id: 7, columns: [null, { name: 5 }, { name: 'origin' }, { name: 'delay', dataType: 'INT64', kind: 'MEASURE', synonyms: [null, 'late'] }] };
  const safe = safeCatalog(rawCatalog(() => raw));
  const a = await safe.getColumns('Flights');
  assert.deepEqual(a, {
    id: '',
    name: 'Flights',
    columns: [
      { name: 'origin', dataType: '', kind: 'ATTRIBUTE' },
      { name: 'delay', dataType: 'INT64', kind: 'MEASURE', synonyms: ['late'] },
    ],
  });
  assert.equal(await safe.getColumns('Flights'), a);
  // The same nameless raw object asked under another name answers that name.
  const other = await safe.getColumns('flights-guid');
  assert.equal(other?.name, 'flights-guid');
  assert.deepEqual(other?.columns, a?.columns);
  // An answer without columns stays unknown, memoized or not.
  const bad = { name: 'x' };
  const unknownSafe = safeCatalog(rawCatalog(() => bad));
  assert.equal(await unknownSafe.getColumns('x'), undefined);
  assert.equal(await unknownSafe.getColumns('x'), undefined);
});

test('getDataSources: the same raw list gives the same sanitized list', async () => {
  const list = [{ id: 'a', name: 'Flights' }, { id: 5 }, null];
  const safe = safeCatalog(rawCatalog(() => flightsCatalog(), () => list));
  const a = await safe.getDataSources();
  assert.deepEqual(a, [{ id: 'a', name: 'Flights', type: '' }]);
  assert.equal(await safe.getDataSources(), a);
});
