/**
 * Quick fixes for `.tsq` diagnostics, keyed on the stable codes of diagnosticCodes.ts:
 * - `tsq.unknownColumn`: replace the name by each close name of `data.suggestions` (validation.ts
 *   `UnknownColumnData`), the closest one preferred.
 * - `tsq.unknownDataSource`: replace the `@datasource` value by each close name, the closest preferred.
 * - `tsq.noDataSource`: insert `@datasource '<name>'` above the query: `tsq.defaultDataSource` when set,
 *   else up to `MAX_DATA_SOURCE_ACTIONS` data sources (those named in the document first).
 * - `tsq.quoteInValue`: remove the quotes inside the value (docs/service-interface.md §8.5).
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CodeActionKind, type CodeAction, type CodeActionContext, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver-types';
import type { DataSource } from '../model';
import * as codes from '../language/diagnosticCodes';
import type { CancellationLike, LanguageSettings, ServiceContext } from './types';
import { memberOf } from '../guards';

/** At most this many "add @datasource" actions are offered for one query. */
export const MAX_DATA_SOURCE_ACTIONS = 5;

/**
 * Quick fixes for the diagnostics of `context` (those the client sends for `range`).
 *
 * @param settings `defaultDataSource`, when set, is the one data source offered for `tsq.noDataSource`.
 * @param token cancellation: when requested the answer is [].
 * @returns `quickfix` code actions, each with its diagnostic and a workspace edit on this document; the
 *   best fix of each diagnostic has `isPreferred`. Diagnostics of other codes, or without the `data` a
 *   fix needs, give no action. Never throws.
 */
export async function getCodeActions(ctx: ServiceContext, document: TextDocument, _range: Range, context: CodeActionContext, settings: LanguageSettings, token?: CancellationLike): Promise<CodeAction[]> {
  const actions: CodeAction[] = [];
  const fix = (title: string, diagnostic: Diagnostic, edits: TextEdit[], isPreferred: boolean): CodeAction => {
    const action: CodeAction = { title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], edit: { changes: { [document.uri]: edits } } };
    if (isPreferred) action.isPreferred = true;
    return action;
  };
  let sources: Promise<DataSource[] | undefined> | undefined;

  for (const d of context.diagnostics) {
    if (token?.isCancellationRequested) return [];
    switch (d.code) {
      case codes.UNKNOWN_COLUMN: {
        const range = columnNameRange(document, d.range);
        suggestionsOf(d).forEach((name, i) => actions.push(fix(`Replace with [${name}]`, d, [{ range, newText: name }], i === 0)));
        break;
      }
      case codes.UNKNOWN_DATA_SOURCE: {
        const range = unquotedRange(document, d.range);
        suggestionsOf(d).forEach((name, i) => actions.push(fix(`Replace with '${name}'`, d, [{ range, newText: name }], i === 0)));
        break;
      }
      case codes.NO_DATA_SOURCE: {
        const line = d.range.start.line;
        const indent = /^[ \t]*/.exec(document.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }))![0];
        const at = { line, character: 0 };
        const insert = (name: string) => [{ range: { start: at, end: at }, newText: `${indent}@datasource '${name}'\n` }];
        const configured = settings.defaultDataSource?.trim();
        if (configured) {
          actions.push(fix(`Add @datasource '${configured}' (tsq.defaultDataSource)`, d, insert(configured), true));
          break;
        }
        if (!ctx.catalog) break;
        sources ??= ctx.catalog.getDataSources(token);
        const all = await sources;
        if (token?.isCancellationRequested) return [];
        if (!all) break;
        for (const [i, s] of rankSources(ctx, document, all).slice(0, MAX_DATA_SOURCE_ACTIONS).entries()) {
          if (s.name.includes("'")) continue;
          actions.push(fix(`Add @datasource '${s.name}'`, d, insert(s.name), i === 0 && (s.named || all.length === 1)));
        }
        break;
      }
      case codes.QUOTE_IN_VALUE: {
        const text = document.getText(d.range);
        const q = text[0];
        if (q !== "'" && q !== '"') break;
        const closed = text.length > 1 && text.endsWith(q);
        const inner = text.slice(1, closed ? -1 : undefined);
        if (!inner.includes(q)) break;
        const newText = q + inner.split(q).join('') + (closed ? q : '');
        actions.push(fix('Remove the quote inside the value', d, [{ range: d.range, newText }], true));
        break;
      }
      default:
        break;
    }
  }
  return actions;
}

/** `data.suggestions` of a diagnostic (validation.ts `UnknownColumnData`), or []. */
function suggestionsOf(d: Diagnostic): string[] {
  const suggestions = memberOf(d.data, 'suggestions');
  return Array.isArray(suggestions) ? suggestions.filter((s): s is string => typeof s === 'string' && s !== '') : [];
}

/** The range of the name inside `[ ]` when the diagnostic covers the brackets too. */
function columnNameRange(document: TextDocument, range: Range): Range {
  const text = document.getText(range);
  if (!text.startsWith('[')) return range;
  const start = document.offsetAt(range.start) + 1;
  const end = document.offsetAt(range.end) - (text.endsWith(']') ? 1 : 0);
  return { start: document.positionAt(start), end: document.positionAt(end) };
}

/** The range inside quotes when the diagnostic covers the quotes too. */
function unquotedRange(document: TextDocument, range: Range): Range {
  const text = document.getText(range);
  if (!text.startsWith("'")) return range;
  const start = document.offsetAt(range.start) + 1;
  const end = document.offsetAt(range.end) - (text.length > 1 && text.endsWith("'") ? 1 : 0);
  return { start: document.positionAt(start), end: document.positionAt(end) };
}

/** Data sources named by a directive of the document first (in document order), then the others by name. */
function rankSources(ctx: ServiceContext, document: TextDocument, sources: DataSource[]): (DataSource & { named: boolean })[] {
  const named: string[] = [];
  for (const d of ctx.parse(document).directives) if (d.value) named.push(d.value.toLowerCase());
  const rank = (s: DataSource) => {
    const i = named.findIndex((n) => n === s.name.toLowerCase() || n === s.id.toLowerCase());
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return sources
    .map((s) => ({ ...s, named: rank(s) !== Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}
