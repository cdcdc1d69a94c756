/**
 * Formulas in the editor inside TML, in the built language server (dist/server.js, driven by
 * lspClient.ts): in each YAML string style of `expr` (plain, single-quoted, double-quoted with escapes,
 * literal and folded block), the diagnostic, the completion's edit range and the hover range fall on
 * the characters of the text; inside a Worksheet or Model TML's `formulas[].expr`, completion offers the
 * functions and the model's columns, and hover a function's reference entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { demoSeed } from '../../emulator/src/demo';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';
import { demoTableSources } from '../fixtures/demoSources';
import { LspClient, positionOf, rangeOf } from './lspClient';

/** One `expr` a YAML style: `[style, the YAML of the value, the misspelt function in it]`; the text before the name holds an escape of the style. */
const STYLES = [
  ['plain', "if ( [origin] = 'a' ) then summa ( [delay] ) else 0", 'summa'],
  ['single', "'if ( [origin] = ''b'' ) then summe ( [delay] ) else 0'", 'summe'],
  ['double', '"if ( [origin] = \\"c\\t\\" ) then summi ( [delay] ) else 0"', 'summi'],
  ['literal', "|\n      if ( [origin] = 'd' )\n      then summo ( [delay] ) else 0", 'summo'],
  ['folded', ">-\n      if ( [origin] = 'e' )\n      then summu ( [delay] ) else 0", 'summu'],
] as const;

const ANSWER = `guid: null
answer:
  name: Styles
  tables:
  - id: Flights
    name: Flights
  formulas:
${STYLES.map(([s, e]) => `  - id: formula_${s}\n    name: ${s}\n    expr: ${e}\n`).join('')}  search_query: "[origin] [delay]"
`;

test('formula offsets in every YAML string style of expr: diagnostic, completion edit and hover on the characters of the text', async () => {
  const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider([flightsCatalog()]) });
  try {
    const uri = 'file:///w/styles.answer.tml';
    await client.didOpen(uri, ANSWER);
    const diagnostics = (await client.pullDiagnostics(uri)).filter((d) => d.code === 'formula.unknownFunction');
    for (const [style, , name] of STYLES) {
      const d = diagnostics.find((x) => String(x.message).includes(name));
      assert.deepEqual(d?.range, rangeOf(ANSWER, name), `${style}: ${JSON.stringify(diagnostics)}`);
      const list = await client.completion(uri, positionOf(ANSWER, name, 3));
      const sum = list?.items.find((i) => i.label === 'sum');
      assert.deepEqual(sum && 'range' in sum.textEdit! ? sum.textEdit.range : undefined, { start: rangeOf(ANSWER, name).start, end: positionOf(ANSWER, name, 3) }, style);
      const column = list?.items.find((i) => i.label === '[delay]');
      assert.ok(column, `${style}: ${JSON.stringify(list?.items.map((i) => i.label))}`);
      const inColumn = await client.completion(uri, positionOf(ANSWER, `${name} ( [de`, name.length + 5));
      assert.ok(inColumn?.items.some((i) => i.label === '[delay]'), style);
      const hover = await client.hover(uri, positionOf(ANSWER, `${name} ( [delay]`, name.length + 4));
      assert.deepEqual(hover?.range, rangeOf(ANSWER, '[delay]', ANSWER.indexOf(name)), style);
    }
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});

const SOURCES = demoTableSources();

/** The demo's Flights Model as a Worksheet TML. */
function worksheetText(): string {
  const { name, tables, joins, table_paths, formulas, columns } = demoSeed().models![0]!;
  return stringify({ worksheet: { name, tables, joins, table_paths, formulas, worksheet_columns: columns } });
}

/** A Model TML on the flights table, its formula counting a measure. */
const MODEL = `model:
  name: Flights Model
  model_tables:
  - name: flights
  formulas:
  - id: formula_Late
    name: Late
    expr: "sum ( if ( [Delay] > 15 ) then 1 else 0 ) / count ( [Delay] )"
  columns:
  - name: Delay
    column_id: flights::delay
    properties:
      column_type: MEASURE
  - name: Origin City
    column_id: flights::origin
  - name: Late
    formula_id: formula_Late
`;

/** Each kind: its text, and the hover of its `[Delay]` column. */
const MODELS = [
  ['worksheet', worksheetText(), 'INT32 attribute (int)'],
  ['model', MODEL, 'INT32 measure (int)'],
] as const;

for (const [kind, text, delay] of MODELS) {
  test(`a ${kind} TML's formulas[].expr in the editor: completion of functions and the model's columns, hover with the function's reference entry`, async () => {
    const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider(SOURCES) });
    try {
      const uri = `file:///w/Flights%20Model.${kind}.tml`;
      await client.didOpen(uri, text);
      const words = await client.completion(uri, positionOf(text, 'count ( [Delay]', 2));
      const labels = words?.items.map((i) => i.label) ?? [];
      assert.ok(labels.includes('count') && labels.includes('[Origin City]'), JSON.stringify(labels));
      const count = words!.items.find((i) => i.label === 'count')!;
      assert.deepEqual(count.textEdit && 'range' in count.textEdit ? count.textEdit.range : undefined, { start: positionOf(text, 'count ( [Delay]'), end: positionOf(text, 'count ( [Delay]', 2) });
      const columns = await client.completion(uri, positionOf(text, 'count ( [Delay]', 10));
      assert.ok(columns?.items.some((i) => i.label === '[Delay]'), JSON.stringify(columns?.items.map((i) => i.label)));
      assert.ok(!columns?.items.some((i) => i.label === 'count'), 'inside [ only columns');
      const hover = await client.hover(uri, positionOf(text, 'count ( [Delay]', 1));
      assert.match((hover?.contents as { value: string } | undefined)?.value ?? '', /\*\*count\*\*[\s\S]*formula-reference#count/);
      assert.deepEqual(hover?.range, rangeOf(text, 'count', text.indexOf('expr:')));
      const column = await client.hover(uri, positionOf(text, '[Delay] > 15', 2));
      assert.equal((column?.contents as { value: string } | undefined)?.value, `**[Delay]** — ${delay}`);
      assert.ok(client.alive, client.stderr);
    } finally {
      await client.stop();
    }
  });
}
