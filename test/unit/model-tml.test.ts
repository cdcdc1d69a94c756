// Worksheet, model and table TML checked locally (common/src/tml/modelTml.ts, modelTmlCheck.ts), routed by
// suffix and by content as `tsq check`, the editor and `tsq tml validate` route them: a valid model has no
// diagnostic; each class of problem (unknown table or column, incompatible join types, duplicate names and
// formula ids, a join cycle, an unknown table path or formula, a formula the formula checker refuses) is one
// diagnostic on the member it names;
// without a catalog the tables' columns are not checked (no false error).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { tmlCodeActions, validateTml } from '../../common/src/tml/tmlService';
import { tmlKindOf } from '../../common/src/tml/liveboardTml';
import { demoSeed } from '../../emulator/src/demo';
import { makeCatalogProvider } from '../fixtures/catalogs';
import { demoTableSources } from '../fixtures/demoSources';

/** The demo's flights and airports as a catalog gives them (their declared columns and types). */
const sources = demoTableSources();
const ls = getLanguageService({ catalog: makeCatalogProvider(sources) });

/** The demo model as worksheet TML (the seed's members are worksheet TML's). */
function demoWorksheet(): Record<string, any> {
  const { name, tables, joins, table_paths, formulas, columns } = demoSeed().models![0]!;
  return { worksheet: { name, tables, joins, table_paths, formulas, worksheet_columns: columns } };
}

/** The diagnostics of a document written as YAML: each message and the text of the line it is on. */
async function check(doc: unknown, file = '/w/m.worksheet.tml', service = ls): Promise<{ message: string; text: string }[]> {
  const text = stringify(doc);
  const lines = text.split('\n');
  return (await validateTml(service, file, text)).map((d) => ({ message: String(d.message), text: lines[d.range.start.line]!.trim() }));
}

describe('worksheet and model TML, checked locally', () => {
  test('the demo model as worksheet TML has no diagnostic; the same file named .tml is routed by its content', async () => {
    assert.deepEqual(await check(demoWorksheet()), []);
    assert.equal(tmlKindOf(stringify(demoWorksheet())), 'worksheet');
    assert.deepEqual(await check(demoWorksheet(), '/w/m.tml'), []);
  });

  test("each error of a formula is on its characters in the expr string, with the checker's code and did-you-mean", async () => {
    const doc = demoWorksheet();
    doc.worksheet.formulas[0].expr = 'summ ( [Delay] ) / count ( [Dealy] )';
    const text = stringify(doc);
    const got = await validateTml(ls, '/w/m.worksheet.tml', text);
    const lines = text.split('\n');
    const words = got.map((d) => [lines[d.range.start.line]!.slice(d.range.start.character, d.range.end.character), d.code, (d.data as { suggestions?: string[] } | undefined)?.suggestions?.[0]]);
    assert.deepEqual(words, [['summ', 'formula.unknownFunction', 'sum'], ['[Dealy]', 'formula.unknownColumn', '[Delay]']]);
    // each quick fix writes its first suggestion over the characters, and the file then has no diagnostic
    const document = TextDocument.create('file:///w/m.worksheet.tml', 'yaml', 1, text);
    const actions = await tmlCodeActions(ls, document, got[0]!.range, { diagnostics: got });
    const edits = actions.filter((a) => a.isPreferred).map((a) => a.edit!.changes![document.uri]![0]!);
    assert.equal(edits.length, 2);
    const fixed = TextDocument.applyEdits(document, edits);
    assert.deepEqual(await validateTml(ls, '/w/m.worksheet.tml', fixed), []);
  });

  test('a formula naming columns by their table path (`[airports_2::state]`) has no diagnostic', async () => {
    const doc = demoWorksheet();
    doc.worksheet.formulas[0].expr = "count_if ( [airports_2::state] = 'WA' , [flights_1::delay] ) / count ( [Delay] )";
    assert.deepEqual(await check(doc), []);
  });

  test('a model TML (model_tables joined with `with`) has no diagnostic', async () => {
    const doc = { model: { name: 'M', model_tables: [{ name: 'flights', joins: [{ with: 'airports', on: '[flights::origin] = [airports::iata]', type: 'LEFT_OUTER', cardinality: 'MANY_TO_ONE' }] }, { name: 'airports' }], columns: [{ name: 'Origin State', column_id: 'airports::state' }, { name: 'Delay', column_id: 'flights::delay' }] } };
    assert.deepEqual(await check(doc, '/w/m.model.tml'), []);
  });

  const cases: { what: string; change: (w: Record<string, any>) => void; message: RegExp; on: RegExp }[] = [
    { what: 'an unknown table', change: (w) => (w.tables[1] = { id: 'airports', name: 'airport' }), message: /table airport does not exist/, on: /name: airport$/ },
    { what: 'an unknown column in a join', change: (w) => (w.joins[0].on = '[flights::origin] = [airports::code]'), message: /join flights_origin: table airports has no column code/, on: /^on:/ },
    { what: 'joined columns of incompatible types', change: (w) => (w.joins[1].on = '[flights::destination] = [airports::latitude]'), message: /\[flights::destination\] is VARCHAR and \[airports::latitude\] is DOUBLE/, on: /^on:/ },
    { what: 'a column whose source is no column of its table', change: (w) => (w.worksheet_columns[0].column_id = 'flights_1::departure'), message: /column Departure: table flights has no column departure/, on: /column_id: flights_1::departure/ },
    { what: 'an unknown table path', change: (w) => (w.worksheet_columns[5].column_id = 'airports_9::name'), message: /table path airports_9 is not one of flights_1, airports_1, airports_2/, on: /column_id: airports_9::name/ },
    { what: 'a duplicate column name', change: (w) => (w.worksheet_columns[1].name = 'departure'), message: /column departure is not unique/, on: /name: departure/ },
    { what: 'a duplicate formula id', change: (w) => w.formulas.push({ ...w.formulas[0], name: 'Other' }), message: /formula id formula_Delayed Share is not unique/, on: /id: formula_Delayed Share/ },
    { what: 'an unknown formula', change: (w) => (w.worksheet_columns.at(-1).formula_id = 'formula_x'), message: /formula formula_x is not one of the formulas/, on: /formula_id: formula_x/ },
    { what: 'a join path naming no join', change: (w) => (w.table_paths[1].join_path = [{ join: ['flights_to_origin'] }]), message: /table path airports_1: join flights_to_origin is not one of the joins/, on: /join/ },
    { what: 'a formula calling an unknown function', change: (w) => (w.formulas[0].expr = 'summ ( [Delay] )'), message: /formula Delayed Share \(summ \( \[Delay\] \)\): .*summ/, on: /^expr:/ },
    { what: 'a formula naming an unknown column', change: (w) => (w.formulas[0].expr = 'sum ( [Late] ) / count ( [Delay] )'), message: /formula Delayed Share .*Late/, on: /^expr:/ },
    { what: 'a formula summing a text', change: (w) => (w.formulas[0].expr = 'sum ( [Origin City] )'), message: /formula Delayed Share .*sum/, on: /^expr:/ },
    { what: 'a formula referring to itself', change: (w) => (w.formulas[0].expr = '[Delayed Share] + 1'), message: /formula Delayed Share .*refers to itself/, on: /^expr:/ },
    { what: 'a formula naming a table path column the model does not show', change: (w) => (w.formulas[0].expr = 'unique count ( [airports_2::iata] )'), message: /formula Delayed Share .*iata/, on: /^expr:/ },
    { what: 'a join cycle', change: (w) => w.joins.push({ name: 'back', source: 'airports', destination: 'flights', type: 'INNER', on: '[airports::iata] = [flights::origin]' }), message: /join \w+ closes a cycle/, on: /destination: /i },
  ];
  for (const c of cases) {
    test(`${c.what}: one diagnostic, on its member`, async () => {
      const doc = demoWorksheet();
      c.change(doc.worksheet);
      const got = await check(doc);
      assert.equal(got.length, 1, JSON.stringify(got));
      assert.match(got[0]!.message, c.message);
      assert.match(got[0]!.text, c.on, JSON.stringify(got[0]));
    });
  }

  test('without a catalog the columns are not checked, the definition is', async () => {
    const offline = getLanguageService({});
    const doc = demoWorksheet();
    doc.worksheet.tables[1] = { id: 'airports', name: 'airport' };
    doc.worksheet.worksheet_columns[1].name = 'DEPARTURE';
    assert.deepEqual((await check(doc, '/w/m.worksheet.tml', offline)).map((d) => d.message), ['column DEPARTURE is not unique (names are unique ignoring case).']);
  });

  test('a table TML: unique column names and known data types', async () => {
    const doc = { table: { name: 'T', db: 'd', schema: 's', db_table: 't', columns: [{ name: 'a', db_column_properties: { data_type: 'INT64' } }, { name: 'A', db_column_properties: { data_type: 'INT' } }] } };
    assert.deepEqual((await check(doc, '/w/t.table.tml')).map((d) => d.message), ['column A is not unique (names are unique ignoring case).', 'column A: data_type INT is not one of VARCHAR, CHAR, BOOL, INT32, INT64, FLOAT, DOUBLE, DATE, DATE_TIME, TIME.']);
  });

  test('a file without its object member says so', async () => {
    assert.match((await check({ answer: { name: 'x' } }, '/w/m.model.tml'))[0]!.message, /The member model is missing/);
  });
});
