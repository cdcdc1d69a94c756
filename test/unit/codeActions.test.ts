/**
 * Quick fixes of the .tsq language service, on the diagnostics the real validation reports, against
 * catalogs built from the vega-datasets flights, cars and movies data (test/fixtures/catalogs.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver-types';
import { getLanguageService } from '../../common/src/languageService/languageService';
import * as codes from '../../common/src/language/diagnosticCodes';
import type { CatalogProvider, LanguageSettings } from '../../common/src/languageService/types';
import { carsCatalog, flightsCatalog, makeCatalogProvider, moviesCatalog } from '../fixtures/catalogs';

const allSources = () => makeCatalogProvider([flightsCatalog(), carsCatalog(), moviesCatalog()]);

/** Validates `text`, then asks the quick fixes for the diagnostics of `code`. */
async function fixes(text: string, code: string, opts: { settings?: LanguageSettings; catalog?: CatalogProvider | null; cancelled?: boolean } = {}) {
  const document = TextDocument.create('file:///test.tsq', 'tsq', 1, text);
  const catalog = opts.catalog === null ? undefined : (opts.catalog ?? allSources());
  const ls = getLanguageService({ catalog });
  const settings = opts.settings ?? {};
  const diagnostics = (await ls.doValidation(document, settings)).filter((d) => d.code === code);
  assert.ok(diagnostics.length > 0, `validation reports ${code} for ${JSON.stringify(text)}`);
  const actions = await ls.getCodeActions(document, diagnostics[0]!.range, { diagnostics }, settings, { isCancellationRequested: !!opts.cancelled });
  return { document, diagnostics, actions };
}

function applyAction(document: TextDocument, action: CodeAction): string {
  const edits = action.edit?.changes?.[document.uri] as TextEdit[] | undefined;
  assert.ok(edits && edits.length > 0, `action ${action.title} edits the document`);
  return TextDocument.applyEdits(document, edits);
}

function assertQuickFixFor(action: CodeAction, diagnostic: Diagnostic) {
  assert.equal(action.kind, 'quickfix');
  assert.deepEqual(action.diagnostics, [diagnostic]);
}

test('an unknown column is replaced by each close name, the closest preferred', async () => {
  const text = "@datasource 'Flights'\n[origin] [dealy] > 10";
  const { document, diagnostics, actions } = await fixes(text, codes.UNKNOWN_COLUMN);
  assert.ok(actions.length >= 1);
  for (const a of actions) assertQuickFixFor(a, diagnostics[0]!);
  assert.equal(actions[0]!.title, 'Replace with [delay]');
  assert.equal(actions[0]!.isPreferred, true);
  assert.equal(actions.filter((a) => a.isPreferred).length, 1);
  assert.equal(applyAction(document, actions[0]!), "@datasource 'Flights'\n[origin] [delay] > 10");
});

test('unknown columns with spaces and with a bucket keep the rest of the query', async () => {
  const movies = await fixes("@datasource 'Movies'\n[Major Genra] [US Gross]", codes.UNKNOWN_COLUMN);
  assert.equal(applyAction(movies.document, movies.actions[0]!), "@datasource 'Movies'\n[Major Genre] [US Gross]");
  const bucketed = await fixes("@datasource 'Flights'\n[dat].monthly [delay]", codes.UNKNOWN_COLUMN);
  assert.equal(applyAction(bucketed.document, bucketed.actions[0]!), "@datasource 'Flights'\n[date].monthly [delay]");
});

test('no replacement is offered when no name is close', async () => {
  const { actions } = await fixes("@datasource 'Flights'\n[zzzzzzzzzz]", codes.UNKNOWN_COLUMN);
  assert.deepEqual(actions, []);
});

test('a query without data source gets one "add @datasource" per data source (at most 5)', async () => {
  const text = '[origin] [delay];\n';
  const { document, diagnostics, actions } = await fixes(text, codes.NO_DATA_SOURCE);
  assert.deepEqual(actions.map((a) => a.title).sort(), ["Add @datasource 'Cars'", "Add @datasource 'Flights'", "Add @datasource 'Movies'"]);
  for (const a of actions) assertQuickFixFor(a, diagnostics[0]!);
  const flights = actions.find((a) => a.title.includes('Flights'))!;
  assert.equal(applyAction(document, flights), "@datasource 'Flights'\n[origin] [delay];\n");
  const many = makeCatalogProvider(Array.from({ length: 8 }, (_, i) => ({ ...flightsCatalog(), id: `id-${i}`, name: `Flights ${i}` })));
  const capped = await fixes(text, codes.NO_DATA_SOURCE, { catalog: many });
  assert.equal(capped.actions.length, 5);
});

test('the data source named elsewhere in the document is offered first and preferred; the line goes above the query', async () => {
  const text = "-- sales\n[origin] [delay]\n\n@datasource 'Cars'\n[Name] [Horsepower]";
  const { document, actions } = await fixes(text, codes.NO_DATA_SOURCE);
  assert.equal(actions[0]!.title, "Add @datasource 'Cars'");
  assert.equal(actions[0]!.isPreferred, true);
  assert.equal(actions.filter((a) => a.isPreferred).length, 1);
  assert.equal(applyAction(document, actions[0]!), "-- sales\n@datasource 'Cars'\n[origin] [delay]\n\n@datasource 'Cars'\n[Name] [Horsepower]");
});

test('an unknown data source is replaced by a close name', async () => {
  const { document, actions } = await fixes("@datasource 'Flihgts'\n[delay]", codes.UNKNOWN_DATA_SOURCE);
  assert.equal(actions[0]!.title, "Replace with 'Flights'");
  assert.equal(applyAction(document, actions[0]!), "@datasource 'Flights'\n[delay]");
});

test('a quote inside a value is removed', async () => {
  {
    const { document, diagnostics, actions } = await fixes("@datasource 'Movies'\n[Title] = 'Schindler's List' [US Gross]", codes.QUOTE_IN_VALUE);
    assert.equal(actions.length, 1);
    assertQuickFixFor(actions[0]!, diagnostics[0]!);
    assert.equal(actions[0]!.isPreferred, true);
    assert.equal(applyAction(document, actions[0]!), "@datasource 'Movies'\n[Title] = 'Schindlers List' [US Gross]");
  }
  {
    const { document, actions } = await fixes("@datasource 'Flights'\n[origin] = 'it''s' [delay]", codes.QUOTE_IN_VALUE);
    assert.equal(applyAction(document, actions[0]!), "@datasource 'Flights'\n[origin] = 'its' [delay]");
  }
});

test('a cancelled request gives no action; without catalog no data source is offered', async () => {
  const cancelled = await fixes("@datasource 'Flights'\n[dealy]", codes.UNKNOWN_COLUMN, { cancelled: true });
  assert.deepEqual(cancelled.actions, []);
  // The setting, when present, is the one offered data source (validation reports the query when the
  // setting names nothing usable; here the diagnostic is built by hand to ask the fix directly).
  const document = TextDocument.create('file:///test.tsq', 'tsq', 1, '[delay]');
  const diagnostic: Diagnostic = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 7 } }, message: 'no data source', code: codes.NO_DATA_SOURCE };
  const ls = getLanguageService({});
  assert.deepEqual(await ls.getCodeActions(document, diagnostic.range, { diagnostics: [diagnostic] }, {}), []);
  const withSetting = await ls.getCodeActions(document, diagnostic.range, { diagnostics: [diagnostic] }, { defaultDataSource: 'Flights' });
  assert.equal(withSetting.length, 1);
  assert.equal(applyAction(document, withSetting[0]!), "@datasource 'Flights'\n[delay]");
});
