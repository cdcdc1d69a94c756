/**
 * The rows of the Uses view (client/src/usesRows.ts, the part without `vscode`), built from a `tsq/uses`
 * answer that the workspace index computes from texts (common/src/languageService): the files in the
 * order the answer names them, each with its count of uses and its uses labelled by their line; then the
 * service's group, pending, empty, of the column or of its data source, bounded (the paging note), and
 * its dependents with the command that opens each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkspaceIndex } from '../../common/src/languageService/workspaceIndex';
import { locationsOf } from '../../common/src/languageService/navigation';
import type { UsesAnswer } from '../../common/src/protocol';
import { childrenOf, fileNodes, MORE_NOTE, rowOf, SERVICE_LABEL, serviceNode, shownColumn, type UsesNode } from '../../client/src/usesRows';

const TEXTS: Record<string, string> = {
  'file:///w/q/a%20b.tsq': "@datasource 'Sales'\n[revenue] [region]\n\n  sum [revenue] by [region]\n",
  'file:///w/answers/r.answer.tml': 'answer:\n  name: R\n  tables:\n  - name: Sales\n  search_query: "[region] [revenue]"\n',
  'file:///w/q/other.tsq': "@datasource 'Marketing'\n[revenue]\n",
};

/** What `tsq/uses` answers for Sales' `revenue` over TEXTS (server/src/features/navigation.ts builds it so). */
function answer(): UsesAnswer {
  const index = new WorkspaceIndex();
  for (const [uri, text] of Object.entries(TEXTS)) index.set(uri, text);
  return { column: 'revenue', dataSource: 'Sales', locations: locationsOf(index.references({ kind: 'column', column: 'revenue', dataSource: 'sales' }, false)) };
}

const lineOf = (uri: string) => (line: number) => TEXTS[uri]!.split('\n')[line] ?? '';
const sales = { id: 'ds-1', name: 'Sales', type: 'WORKSHEET' } as const;

test('the workspace rows: one per file in the answer\'s order, its uses labelled with their line', () => {
  const a = answer();
  assert.equal(shownColumn(a), '[revenue] of Sales');
  const files = fileNodes(a);
  assert.deepEqual(files.map((f) => (f.kind === 'file' ? [f.uri, f.uses.length] : f.kind)), [['file:///w/q/a%20b.tsq', 2], ['file:///w/answers/r.answer.tml', 1]]);
  assert.deepEqual(files.map((f) => rowOf(f)), [
    { label: 'a b.tsq', resourceUri: 'file:///w/q/a%20b.tsq', description: '2 uses', collapsible: 'expanded', contextValue: 'tsqUsesFile' },
    { label: 'r.answer.tml', resourceUri: 'file:///w/answers/r.answer.tml', description: '1 use', collapsible: 'expanded', contextValue: 'tsqUsesFile' },
  ]);
  const uses = files.flatMap((f) => (f.kind === 'file' ? childrenOf(f, lineOf(f.uri)) : []));
  // the place is 1-based, at the column's name (inside the brackets)
  assert.deepEqual(uses.map((u) => rowOf(u)).map((r) => [r.label, r.description, r.collapsible, r.open?.uri]), [
    ['[revenue] [region]', '2:2', 'none', 'file:///w/q/a%20b.tsq'],
    ['sum [revenue] by [region]', '4:8', 'none', 'file:///w/q/a%20b.tsq'],
    ['search_query: "[region] [revenue]"', '5:28', 'none', 'file:///w/answers/r.answer.tml'],
  ]);
  // a use whose line cannot be read is labelled by its place
  const first = files[0]!;
  assert.equal(first.kind === 'file' ? rowOf(childrenOf(first, () => '')[0]!).label : '', '2:2');
  // no file uses the column: one message row
  assert.deepEqual(fileNodes({ ...a, locations: [] }).map((n) => rowOf(n)), [{ label: 'No file of the workspace uses [revenue].', collapsible: 'none' }]);
});

test('the service rows: pending, empty, of the column, of the data source, bounded; each dependent opens as the Objects view opens it', () => {
  const a = answer();
  const pending: UsesNode = { kind: 'service', dependents: undefined };
  assert.deepEqual(rowOf(pending), { label: `${SERVICE_LABEL}…`, description: '', icon: 'cloud', collapsible: 'none' });
  assert.deepEqual(childrenOf(pending, () => ''), []);
  assert.deepEqual(rowOf(serviceNode(a, null)), { label: SERVICE_LABEL, description: '0 dependents, no data source Sales', icon: 'cloud', collapsible: 'none' });
  const objects = [
    { id: 'a-1', name: 'Revenue by region', type: 'QUESTION_ANSWER_BOOK' },
    { id: 'p-1', name: 'Overview', type: 'PINBOARD_ANSWER_BOOK' },
    { id: 'w-1', name: 'Sales model', type: 'LOGICAL_TABLE' },
    { id: 'x-1', name: 'Other', type: 'SOMETHING_ELSE' },
  ];
  const ofColumn = serviceNode(a, { objects, complete: true, of: 'column', dataSource: sales });
  assert.deepEqual(rowOf(ofColumn), { label: SERVICE_LABEL, description: '4 dependents', icon: 'cloud', collapsible: 'expanded' });
  const rows = childrenOf(ofColumn, () => '').map((n) => rowOf(n));
  assert.deepEqual(rows.map((r) => [r.label, r.description, r.icon, r.command?.command, r.tooltip]), [
    ['Revenue by region', 'answer', 'comment-discussion', 'tsq.openAnswerAsQuery', 'answer Revenue by region (a-1)'],
    ['Overview', 'liveboard', 'dashboard', 'tsq.showData', 'liveboard Overview (p-1)'],
    ['Sales model', 'worksheet or model', 'table', 'tsq.newQueryOnDataSource', 'worksheet or model Sales model (w-1)'],
    ['Other', 'SOMETHING_ELSE', 'symbol-misc', undefined, 'SOMETHING_ELSE Other (x-1)'],
  ]);
  const node = rows[0]!.command!.arguments[0];
  assert.ok(node.kind === 'object' && node.type === 'QUESTION_ANSWER_BOOK' && node.header.id === 'a-1' && node.header.name === 'Revenue by region', JSON.stringify(node));
  // of the data source, and bounded: both notes, the paging one last
  const ofSource = serviceNode(a, { objects: objects.slice(0, 1), complete: false, of: 'dataSource', dataSource: sales });
  assert.equal(rowOf(ofSource).description, `1 dependent, of the data source Sales: the service lists no column [revenue]; ${MORE_NOTE}`);
  assert.equal(serviceNode(a, { objects: [], complete: false, of: 'column', dataSource: sales }).note, MORE_NOTE);
  assert.equal(rowOf(serviceNode(a, { objects: [], complete: true, of: 'column', dataSource: sales })).collapsible, 'none');
});
