/**
 * Validation after an edit keeps the semantic checks of the queries the edit did not touch
 * (common/src/languageService/validation.ts, by query node and the catalog's answer): its diagnostics are
 * exactly those of a fresh language service's validation of the same text. Property-based over random
 * documents and random sequences of edits, catalog changes (other columns, other types, an ambiguous
 * name, a missing column, an unknown catalog, and back) and settings changes between validations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { CatalogProvider, LanguageSettings } from '../../common/src/languageService/types';
import type { ColumnDataType } from '../../common/src/model';
import { carsCatalog, flightsCatalog, makeCatalogProvider, type FixtureSource } from '../fixtures/catalogs';

const fragments = [
  '[origin]', '[delay]', '[date]', '[Origin]', '[Year]', '[Horsepower]', '[distance]', '[', ']', '[]', '[a[b]', "'", "'SEA'", '=', '!=', '<',
  '>=', ',', '.', ';', ';', '{null}', '-', '--', '-- comment', '@datasource', "@datasource 'Flights'", "@datasource 'Cars'", '@datasource Nope',
  'sort by', 'top', '10', '-5', 'between', 'and', 'contains', 'begins with', 'last', '7', 'days', 'sum', 'monthly', '.monthly', 'growth of',
  'ranked by', 'sum(', '[a + b]', '[delai]', '[when]', '\t', ' ', '\n', '\r\n', '\n\n', '\n\n', 'é',
];
const soup = fc.array(fc.constantFrom(...fragments), { maxLength: 80 }).chain((parts) =>
  fc.array(fc.constantFrom(' ', ' ', '\n', ''), { minLength: parts.length, maxLength: parts.length }).map((seps) => parts.map((p, i) => p + seps[i]).join('')));

/** Catalog variants; each keeps its own `columns` arrays, so going back to one answers the same arrays. */
function variants(): (FixtureSource[] | 'unknown')[] {
  const flights = flightsCatalog();
  const cars = carsCatalog();
  const retype = (s: FixtureSource, to: Record<string, ColumnDataType>): FixtureSource => ({ ...s, columns: s.columns.map((c) => (to[c.name] ? { ...c, dataType: to[c.name]! } : c)) });
  return [
    [flights, cars],
    [retype(flights, { origin: 'INT64', delay: 'VARCHAR', date: 'VARCHAR', distance: 'DATE' }), cars],
    [{ ...flights, columns: [...flights.columns.filter((c) => c.name !== 'delay'), { name: 'Origin', dataType: 'DATE', kind: 'ATTRIBUTE', synonyms: ['when', 'delay'] }] }, retype(cars, { Year: 'INT32' })],
    [cars],
    'unknown',
    // The same columns as the first, in new arrays (a new answer after `tsq/catalogChanged`).
    [{ ...flights, columns: flights.columns.map((c) => ({ ...c })) }, { ...cars, columns: [...cars.columns] }],
  ];
}

const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), del: fc.nat({ max: 6 }), ins: fc.oneof(fc.constantFrom(...fragments, ''), fc.string({ maxLength: 3 })) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('catalog' as const), to: fc.nat({ max: 5 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('settings' as const),
      defaultDataSource: fc.constantFrom(undefined, '', 'Flights', 'cars', 'Nope'),
      disabled: fc.subarray(['tsq.unknownColumn', 'tsq.ambiguousColumn', 'tsq.noDataSource', 'tsq.bucketOnNonDate']),
    }),
  },
);

test('validation after edits and catalog changes equals a fresh validation', async () => {
  const all = variants();
  await fc.assert(fc.asyncProperty(soup, fc.array(step, { minLength: 1, maxLength: 12 }), async (text, steps) => {
    let current: CatalogProvider = makeCatalogProvider(all[0] as FixtureSource[]);
    // One provider whose answers change, as the server's catalog after `tsq/catalogChanged`.
    const catalog: CatalogProvider = {
      getDataSources: (t) => current.getDataSources(t),
      getColumns: (ds, t) => current.getColumns(ds, t),
      getColumnValues: (ds, c, p, t) => current.getColumnValues(ds, c, p, t),
    };
    const kept = getLanguageService({ catalog });
    let settings: LanguageSettings = { defaultDataSource: 'Flights' };
    let version = 1;
    await kept.doValidation(TextDocument.create('file:///k.tsq', 'tsq', version, text), settings);
    for (const s of steps) {
      if (s.kind === 'edit') {
        const at = s.at % (text.length + 1);
        text = text.slice(0, at) + s.ins + text.slice(at + s.del);
      } else if (s.kind === 'catalog') {
        const v = all[s.to]!;
        current = v === 'unknown' ? makeCatalogProvider([], {}, { unknown: true }) : makeCatalogProvider(v);
      } else {
        settings = { disabledDiagnostics: s.disabled };
        if (s.defaultDataSource !== undefined) settings.defaultDataSource = s.defaultDataSource;
      }
      const document = TextDocument.create('file:///k.tsq', 'tsq', ++version, text);
      const got = await kept.doValidation(document, settings);
      const fresh = await getLanguageService({ catalog }).doValidation(TextDocument.create('file:///f.tsq', 'tsq', 1, text), settings);
      assert.deepStrictEqual(got, fresh, `after ${JSON.stringify(s)}: ${JSON.stringify(text)}`);
    }
  }), { numRuns: 400 });
});

test('a one-character edit in a 300-query document: the diagnostics of a fresh validation, moved', async () => {
  let text = "@datasource 'Flights'\n";
  for (let q = 0; q < 300; q++) text += `[origin] [delai] [date].monthly [origin] = 'A${q}' [nope${q % 7}]${q % 3 === 0 ? '\n\n' : ';\n'}`;
  const catalog = makeCatalogProvider([flightsCatalog()]);
  const ls = getLanguageService({ catalog });
  const before = await ls.doValidation(TextDocument.create('file:///e.tsq', 'tsq', 1, text), {});
  const at = text.indexOf("'A150'") + 2;
  const next = text.slice(0, at) + 'x' + text.slice(at);
  const after = await ls.doValidation(TextDocument.create('file:///e.tsq', 'tsq', 2, next), {});
  assert.equal(after.length, before.length);
  assert.equal(after.length, 600, 'an unknown column [delai] and [nopeN] in every query');
  const editedLine = TextDocument.create('file:///e.tsq', 'tsq', 1, text).positionAt(at).line;
  const line = before.findIndex((d) => d.range.start.line === editedLine && d.range.start.character > at - text.lastIndexOf('\n', at));
  assert.deepStrictEqual(after[line]!.range, { start: { ...before[line]!.range.start, character: before[line]!.range.start.character + 1 }, end: { ...before[line]!.range.end, character: before[line]!.range.end.character + 1 } }, 'moved one character right on the edited line');
  assert.deepStrictEqual(after, await getLanguageService({ catalog }).doValidation(TextDocument.create('file:///g.tsq', 'tsq', 1, next), {}));
});
