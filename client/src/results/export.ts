/**
 * Export Results: a tab's answer written to a CSV or JSON file (common/src/results/export.ts), with the
 * CSV injection protection of `tsq.results.csvInjectionProtection`. The save dialog offers a name of the
 * data source and the time (`exportFileName`); the message after an export offers Open (the file in an
 * editor) and, in a desktop VS Code on the machine of the file, Reveal (in the system's file manager).
 */
import * as vscode from 'vscode';
import { exportFileName, writeAnswer, type CsvOptions } from '../../../common/src/results/export';
import { pageRows, unpackPage } from '../../../common/src/results/messages';
import type { CellValue } from '../../../common/src/results/shape';
import { errorMessage } from '../service';
import { resultsSettings } from '../settings';
import type { ResultsTarget, TabData } from './panel';

/** CSV/TSV output options from the settings: `tsq.results.csvInjectionProtection` (default on). */
export function csvOptions(): CsvOptions {
  return { csvInjectionProtection: resultsSettings().csvInjectionProtection };
}

/**
 * Writes the answer of tab `tabId` of `p` (default: its active or last tab) to `path`, or to a file the
 * person picks in a save dialog. Resolves to the file and rows written, or undefined when there is no
 * answer, the dialog was cancelled or the write failed (each shown as a message; never throws). The
 * export is logged in `log`.
 */
export async function exportTab(log: vscode.LogOutputChannel, p: ResultsTarget, tabId: string | undefined, format: 'csv' | 'json', path?: string): Promise<{ file: string; rows: number } | undefined> {
  const tab: TabData | undefined = p.tabs.get(tabId ?? p.activeTab ?? '') ?? [...p.tabs.values()].pop();
  if (!tab || !tab.columnNames) {
    void vscode.window.showWarningMessage('TSQ: there is no answer to export yet.');
    return undefined;
  }
  let target = path ? vscode.Uri.file(path) : undefined;
  if (!target) {
    const base = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = exportFileName(tab.dataSource ?? tab.title, new Date(), format);
    target = await vscode.window.showSaveDialog({
      defaultUri: base ? vscode.Uri.joinPath(base, name) : undefined,
      filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
      saveLabel: `Export ${format.toUpperCase()}`,
    });
    if (!target) return undefined;
  }
  try {
    const rows = await writeAnswer(target.fsPath, format, tab.columnNames, unpackedPages(tab.pages), csvOptions());
    log.info(`Exported ${rows} rows of "${tab.title}" to ${target.fsPath}`);
    if (!path) void offerOpen(log, target, `TSQ: exported ${rows.toLocaleString('en-US')} rows to ${target.fsPath}${tab.done ? '' : ' (the answer was still loading: only the rows fetched so far)'}`);
    return { file: target.fsPath, rows };
  } catch (e) {
    void vscode.window.showErrorMessage(`TSQ: exporting to ${target.fsPath} failed: ${errorMessage(e)}`);
    return undefined;
  }
}

/**
 * Whether Reveal (the `revealFileInOS` command) can show a file: only a desktop VS Code whose window
 * runs on the machine of the file (no remote), as VS Code's own "Reveal in File Explorer" is offered.
 */
function canRevealInOs(): boolean {
  return vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined;
}

/** Shows `message` with Open (the file in an editor) and, where the platform has it, Reveal; runs the one chosen. */
async function offerOpen(log: vscode.LogOutputChannel, file: vscode.Uri, message: string): Promise<void> {
  const actions = canRevealInOs() ? ['Open', 'Reveal'] : ['Open'];
  const choice = await vscode.window.showInformationMessage(message, ...actions);
  try {
    if (choice === 'Open') await vscode.commands.executeCommand('vscode.open', file);
    else if (choice === 'Reveal') await vscode.commands.executeCommand('revealFileInOS', file);
  } catch (e) {
    log.warn(`${choice} of ${file.fsPath} failed: ${errorMessage(e)}`);
    void vscode.window.showErrorMessage(`TSQ: could not ${choice?.toLowerCase()} ${file.fsPath}: ${errorMessage(e)}`);
  }
}

/** The rows of packed pages, one page unpacked at a time (an export holds one page of row arrays at most). */
function* unpackedPages(pages: readonly Uint8Array[]): Generator<CellValue[][]> {
  for (const p of pages) yield pageRows(unpackPage(p));
}
