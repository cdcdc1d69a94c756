/**
 * The navigation core (common/src/languageService/workspaceIndex.ts, navigation.ts) on texts in memory:
 * a rename inside a plain, a block and a flow scalar of a TML `search_query` leaves YAML that reads back
 * the renamed query (a plain scalar the new name would break is written double-quoted); a data source
 * named by its GUID is the one a file names beside it; formulas of an answer are not columns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { WorkspaceIndex } from '../../common/src/languageService/workspaceIndex';
import { renameColumn, RenameRefused, parseVirtualUri, virtualUri } from '../../common/src/languageService/navigation';

const answer = (query: string) => `guid: null\nanswer:\n  name: A\n  tables:\n  - id: Sales\n    name: Sales\n  formulas:\n  - id: formula_ratio\n    name: ratio\n    expr: "[revenue] / 2"\n  search_query: ${query}\n`;

function renamed(text: string, newName: string): string {
  const index = new WorkspaceIndex();
  index.set('file:///w/a.answer.tml', text);
  const edit = renameColumn(index, { kind: 'column', column: 'revenue', dataSource: 'sales' }, newName, []);
  return TextDocument.applyEdits(TextDocument.create('file:///w/a.answer.tml', 'yaml', 1, text), edit.changes?.['file:///w/a.answer.tml'] ?? []);
}

test('a rename in every kind of YAML scalar reads back as the renamed query', () => {
  const forms = [
    'sum [revenue] by [region] [Sales::revenue]',
    '"sum [revenue] by [region] [Sales::revenue]"',
    "'sum [revenue] by [region] [Sales::revenue]'",
    '|-\n    sum [revenue] by [region]\n    [Sales::revenue]',
    '>-\n    sum [revenue] by\n    [region] [Sales::revenue]',
  ];
  for (const form of forms) {
    const text = answer(form);
    const before = (parse(text) as { answer: { search_query: string } }).answer.search_query;
    for (const name of ['net revenue', 'net: revenue #1', `it's "net"`, 'back\\slash']) {
      const after = parse(renamed(text, name)) as { answer: { search_query: string; name: string; formulas: unknown } };
      assert.equal(after.answer.search_query, before.replace('[revenue]', `[${name}]`).replace('[Sales::revenue]', `[Sales::${name}]`), `${form} → ${name}`);
      assert.equal(after.answer.name, 'A');
    }
  }
});

test('a formula of the answer is not a column; a GUID stands for the name a file gives it', () => {
  const index = new WorkspaceIndex();
  index.set('file:///w/a.answer.tml', answer('"[ratio] [formula_ratio] [revenue]"'));
  index.set('file:///w/m.model.tml', 'guid: 0b5e1c2a-7f3d-4e6a-9c1b-2d3e4f5a6b7c\nmodel:\n  name: Sales\n  columns:\n  - name: revenue\n  - name: ratio\n');
  index.set('file:///w/g.tsq', "@datasource '0b5e1c2a-7f3d-4e6a-9c1b-2d3e4f5a6b7c'\n[revenue]\n");
  const refs = index.references({ kind: 'column', column: 'ratio', dataSource: 'Sales' }, false);
  assert.deepEqual(refs, []);
  const revenue = index.references({ kind: 'column', column: 'REVENUE', dataSource: 'sales' }, false).map((r) => r.file.uri).sort();
  assert.deepEqual(revenue, ['file:///w/a.answer.tml', 'file:///w/g.tsq']);
  assert.throws(() => renameColumn(index, { kind: 'column', column: 'revenue', dataSource: 'sales' }, 'Ratio', ['ratio']), RenameRefused);
  // the file re-read alone: its old references go
  index.set('file:///w/g.tsq', "@datasource 'Other'\n[revenue]\n");
  assert.deepEqual(index.references({ kind: 'column', column: 'revenue', dataSource: 'sales' }, false).map((r) => r.file.uri), ['file:///w/a.answer.tml']);
});

test('a tsq: URI reads back its data source and column', () => {
  for (const [ds, col] of [['Retail Sales', 'net/revenue'], ["it's %", undefined]] as const) assert.deepEqual(parseVirtualUri(virtualUri(ds, col)), { dataSource: ds, ...(col ? { column: col } : {}) });
  assert.equal(parseVirtualUri('file:///a.md'), undefined);
});
