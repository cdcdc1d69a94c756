/**
 * One mistake, one problem: a query in which the language server reports an error is not sent (the
 * service would refuse the same mistake, without the suggestion), unless run anyway; and the service's
 * refusal of a query is not added as a second problem where the language server's already is.
 */
import * as vscode from 'vscode';
import type { DocumentQuery } from '../../../common/src/protocol';

/** The range of a query as VS Code's. */
export const rangeOfQuery = (q: DocumentQuery): vscode.Range => new vscode.Range(q.range.start.line, q.range.start.character, q.range.end.line, q.range.end.character);

/** The language server's error diagnostics (source `tsq`) of `uri` inside the range of `q`: what TSQ already reported there. */
export function localErrors(uri: vscode.Uri, q: DocumentQuery): vscode.Diagnostic[] {
  const range = rangeOfQuery(q);
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'tsq' && d.severity === vscode.DiagnosticSeverity.Error && range.intersection(d.range) !== undefined);
}

/**
 * Whether the queries are held back because the language server reports an error in one of them. Says
 * so in a warning (the first error's line and message) whose action **Run Anyway** calls `runAnyway`.
 */
export function heldBack(log: vscode.LogOutputChannel, doc: vscode.TextDocument, queries: DocumentQuery[], runAnyway: () => Promise<unknown>): boolean {
  const errors = queries.flatMap((q) => localErrors(doc.uri, q));
  if (!errors.length) return false;
  const first = errors[0]!;
  const said = `line ${first.range.start.line + 1}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  log.info(`Query not sent: ${said}`);
  void vscode.window.showWarningMessage(`TSQ: the query was not sent: ${said}. Fix it (see Problems), or run it anyway.`, 'Run Anyway').then((c) => {
    if (c === 'Run Anyway') void runAnyway();
  });
  return true;
}

/**
 * Adds the service's refusal of `q` (`message`) to `diagnostics` on the query's range (code
 * `tsq.searchFailed`), unless the language server already reports an error there: its diagnostic, with
 * its quick fix, is the one problem of the mistake.
 */
export function addServiceProblem(diagnostics: vscode.DiagnosticCollection, uri: vscode.Uri, q: DocumentQuery, message: string): void {
  if (localErrors(uri, q).length) return;
  const d = new vscode.Diagnostic(rangeOfQuery(q), message, vscode.DiagnosticSeverity.Error);
  d.source = 'TSQ (service)';
  d.code = 'tsq.searchFailed';
  diagnostics.set(uri, [...(diagnostics.get(uri) ?? []), d]);
}
