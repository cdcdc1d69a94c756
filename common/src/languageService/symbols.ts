/**
 * Document symbols: one per query (the outline), named by the query's text.
 *
 * Pure: no `vscode`, no connection, no I/O.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServiceContext } from './types';
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver-types';
import { queryView } from '../language/views';

/** Longest symbol name, in characters; longer query texts are cut with an ellipsis. */
export const MAX_SYMBOL_NAME = 80;

/**
 * One `DocumentSymbol` per query, in document order: `name` = the query text on one line (whitespace
 * runs collapsed, cut at `MAX_SYMBOL_NAME` characters), `detail` = the data source in force (its
 * `@datasource`, or '' when none), `kind` = Event, `range` = the query's span, `selectionRange` = its
 * first clause (or the whole query). Read from the tree's views (views.ts), no AST made. Never throws.
 */
export function findDocumentSymbols(ctx: ServiceContext, document: TextDocument): DocumentSymbol[] {
  const doc = ctx.parse(document);
  return Array.from({ length: doc.queryCount }, (_, i) => {
    const q = queryView(doc, i);
    let name = q.text.replace(/\s+/g, ' ').trim();
    if (name.length > MAX_SYMBOL_NAME) name = name.slice(0, MAX_SYMBOL_NAME - 1) + '…';
    if (!name) name = '(empty query)';
    const span = q.span;
    const range = { start: document.positionAt(span.start), end: document.positionAt(span.end) };
    const first = q.clauses()[0];
    const selectionRange = first ? { start: document.positionAt(first.start), end: document.positionAt(first.end) } : range;
    return { name, detail: doc.directiveOf(i)?.value ?? '', kind: SymbolKind.Event, range, selectionRange };
  });
}
