/**
 * Formulas of an Answer TML in the built language server (dist/server.js, driven by lspClient.ts with
 * the fixture catalog): each class of formula error (a syntax error, and a loop through another formula
 * too) is a diagnostic on its characters inside the `expr` YAML string, naming the function or column;
 * the did-you-mean of an unknown function is a quick fix; completion inside `expr` offers functions and
 * columns, hover a function's reference entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flightsCatalog, makeCatalogProvider } from '../fixtures/catalogs';
import { LspClient, positionOf, rangeOf } from './lspClient';

/** One formula per error class, each `[name, expr, code, marked text, what the message names]`. */
const CASES = [
  ['Unknown', 'summ ( [delay] )', 'formula.unknownFunction', 'summ', /summ.*Did you mean sum/],
  ['Arity', 'substr ( [origin] )', 'formula.arity', 'substr ( [origin] )', /substr takes 3 arguments, not 1/],
  ['Type', 'sum ( [origin] )', 'formula.argumentType', '[origin]', /sum takes number .*\[origin\]/],
  ['Nested', 'max ( sum ( [delay] ) )', 'formula.aggregation', 'sum ( [delay] )', /max aggregates/],
  ['Column', '[dalay] * 2', 'formula.unknownColumn', '[dalay]', /Unknown column \[dalay\]/],
  ['Loop', '[Loop] + 1', 'formula.cycle', '[Loop]', /Loop → Loop/],
  ['Pong', '[formula_Ping] * 2', 'formula.cycle', '[formula_Ping]', /Pong refers to itself through \[formula_Ping\]: Ping → Pong → Ping/],
  ['Syntax', 'if [delay] > 3 then', 'formula.syntax', '', /Expected a value/],
] as const;

/** The other half of the loop through another formula: Ping names Pong, Pong names Ping by its id (the error is on Pong's). */
const PING: readonly [string, string] = ['Ping', '[Pong] + 1'];

const TML = `guid: null
answer:
  name: Formulas
  tables:
  - id: Flights
    name: Flights
  formulas:
${[PING, ...CASES].map(([n, e]) => `  - id: formula_${n}\n    name: ${n}\n    expr: "${e}"\n`).join('')}  search_query: "[origin] [delay]"
`;

test('formula errors of an Answer TML over the protocol: each on its characters inside expr, with a quick fix for a misspelt function', async () => {
  const { client } = await LspClient.start({ pullDiagnostics: true, catalog: makeCatalogProvider([flightsCatalog()]) });
  try {
    const uri = 'file:///w/formulas.answer.tml';
    await client.didOpen(uri, TML);
    const diagnostics = (await client.pullDiagnostics(uri)).filter((d) => String(d.code).startsWith('formula.'));
    assert.equal(diagnostics.length, CASES.length, JSON.stringify(diagnostics));
    for (const [name, expr, code, marked, names] of CASES) {
      const line = TML.split('\n').findIndex((l) => l.includes(`expr: "${expr}"`));
      const d = diagnostics.find((x) => x.code === code && x.range.start.line === line);
      assert.ok(d, `${name}: ${code} on its expr line ${line}: ${JSON.stringify(diagnostics)}`);
      // a syntax error is marked where the value it expects is missing: the end of the text
      const start = marked ? TML.split('\n')[line]!.indexOf(marked, TML.split('\n')[line]!.indexOf('"')) : TML.split('\n')[line]!.lastIndexOf('"');
      assert.deepEqual([d.range.start.character, d.range.end.character], [start, start + marked.length], name);
      assert.match(String(d.message), names);
    }
    const unknown = diagnostics.find((d) => d.code === 'formula.unknownFunction')!;
    const actions = (await client.codeActions(uri, unknown.range, [unknown])) ?? [];
    const fix = actions.find((a) => a.title === 'Replace with sum');
    assert.ok(fix, JSON.stringify(actions.map((a) => a.title)));
    assert.deepEqual(fix.edit?.changes?.[uri], [{ range: unknown.range, newText: 'sum' }]);
    const list = await client.completion(uri, positionOf(TML, '[dalay', 4));
    assert.ok(list?.items.some((i) => i.label === '[delay]'), JSON.stringify(list?.items.map((i) => i.label)));
    const hover = await client.hover(uri, positionOf(TML, 'substr', 2));
    assert.match((hover?.contents as { value: string }).value, /\*\*substr\*\* \(text function\)[\s\S]*formula-reference#substr/);
    assert.deepEqual(hover?.range, rangeOf(TML, 'substr'));
    assert.ok(client.alive, client.stderr);
  } finally {
    await client.stop();
  }
});
