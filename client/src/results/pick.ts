/**
 * Which query Run Query runs (client/src/results/index.ts): the one of `args.query`'s text, of
 * `args.index`, the editor's selection (with the data source of the query around it), the query under
 * or after the cursor, or the document's first.
 */
import * as vscode from 'vscode';
import type { DocumentQuery } from '../../../common/src/protocol';
import { selectionQueryText } from '../../../common/src/results/shape';
import { defaultDataSource } from '../settings';
import type { RunQueryArgs } from './run';

/**
 * The query to run among `queries` (the document's, from `tsq/queries`), or undefined after a warning
 * saying why none (the text of `args.query` is no longer in the document; no query at the cursor).
 */
export function queryToRun(doc: vscode.TextDocument, editor: vscode.TextEditor | undefined, queries: DocumentQuery[], args: RunQueryArgs | undefined): DocumentQuery | undefined {
  let query: DocumentQuery | undefined;
  if (typeof args?.query === 'string') {
    const wanted = args.query.trim();
    query = queries.find((q) => q.text.trim() === wanted);
    if (!query) {
      void vscode.window.showWarningMessage(`TSQ: ${doc.uri.path.split('/').pop()} no longer holds the query ${wanted.slice(0, 80)}; edit it there and run it.`);
      return undefined;
    }
  } else if (typeof args?.index === 'number') {
    query = queries[args.index];
  } else if (editor) {
    const sel = editor.selection;
    const contains = (q: DocumentQuery, p: vscode.Position) => !p.isBefore(new vscode.Position(q.range.start.line, q.range.start.character)) && !p.isAfter(new vscode.Position(q.range.end.line, q.range.end.character));
    if (!sel.isEmpty) {
      const text = selectionQueryText(doc.getText(sel));
      const around = queries.find((q) => contains(q, sel.start)) ?? [...queries].reverse().find((q) => !sel.start.isBefore(new vscode.Position(q.range.start.line, 0)));
      if (text) query = { text, range: { start: sel.start, end: sel.end }, dataSource: around?.dataSource ?? queries[0]?.dataSource ?? defaultDataSource() };
    } else {
      const p = sel.active;
      query = queries.find((q) => contains(q, p)) ?? queries.find((q) => q.range.start.line >= p.line) ?? [...queries].reverse().find((q) => q.range.end.line <= p.line);
    }
  } else {
    query = queries[0];
  }
  if (!query) void vscode.window.showWarningMessage('TSQ: there is no query here to run.');
  return query;
}

/** The `.tsq` document to run: the open one of `uri`, or the active editor's (undefined when it is not a `.tsq` file). */
export function activeTsqEditor(uri?: string): { doc: vscode.TextDocument; editor?: vscode.TextEditor } | undefined {
  if (uri) {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
    return doc ? { doc, editor } : undefined;
  }
  const editor = vscode.window.activeTextEditor;
  return editor && editor.document.languageId === 'tsq' ? { doc: editor.document, editor } : undefined;
}