/**
 * **TSQ: Validate TML** and **TSQ: Import TML** on a TML file of every kind of `TML_KINDS` (the editor's
 * title, the Explorer's context menu, the palette; test/unit/tml-kinds.test.ts ties the menus to the
 * kinds): the same code as `tsq tml validate` / `tsq tml import` (common/src/tml/tmlFiles.ts: the
 * local checks, then the service's `VALIDATE_ONLY` or the import under PARTIAL). The service's answer
 * becomes problems of the `tsq.tml` collection on the line of the member its message names (the local
 * checks' problems are the language server's, so they are not shown twice); a notification says the
 * result: accepted, the imported GUID, or the errors.
 */
import * as vscode from 'vscode';
import type { Diagnostic } from 'vscode-languageserver-types';
import { checkTmlTexts, importTmlFiles, isTmlError, TML_SERVICE_CODE, validateTmlOnService, type TmlFile } from '../../common/src/tml/tmlFiles';
import { TML_KIND_NAMES, TML_KINDS, TML_LANGUAGE_IDS } from '../../common/src/tml/kinds';
import type { TsqClient } from './context';
import { errorMessage } from './service';
import { isOneOf } from '../../common/src/guards';

/** What Validate TML and Import TML return to a script or test. */
export interface TmlCommandResult {
  /** OK: the service accepted (or imported) the file; ERROR: it refused it; NOT_SENT: a local error kept it. */
  status: 'OK' | 'WARNING' | 'ERROR' | 'NOT_SENT';
  /** The imported object's GUID (Import TML). */
  guid?: string;
  /** The service's problems put on the file (0-based lines). */
  problems: { line: number; message: string }[];
}

const SEVERITY: Record<number, vscode.DiagnosticSeverity> = { 1: vscode.DiagnosticSeverity.Error, 2: vscode.DiagnosticSeverity.Warning, 3: vscode.DiagnosticSeverity.Information, 4: vscode.DiagnosticSeverity.Hint };

/** The text of a diagnostic's message (LSP 3.18 allows markup). */
const textOf = (d: Diagnostic): string => (typeof d.message === 'string' ? d.message : d.message.value);

function toVscode(d: Diagnostic): vscode.Diagnostic {
  const r = d.range;
  const out = new vscode.Diagnostic(new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character), textOf(d), SEVERITY[d.severity ?? 1]);
  out.source = 'TSQ (service)';
  out.code = TML_SERVICE_CODE;
  return out;
}

/** The TML document a command is about: the Explorer's URI, else the active editor's TML document. */
async function tmlDocument(arg: unknown): Promise<vscode.TextDocument | undefined> {
  if (arg instanceof vscode.Uri) return vscode.workspace.openTextDocument(arg);
  const doc = vscode.window.activeTextEditor?.document;
  return doc && isOneOf(TML_LANGUAGE_IDS, doc.languageId) ? doc : undefined;
}

/** Registers Validate TML and Import TML and their problems collection. */
export function registerTmlCommands(client: TsqClient): void {
  const { extension, log } = client;
  const problems = vscode.languages.createDiagnosticCollection('tsq.tml');
  extension.subscriptions.push(
    problems,
    // the service's answer was about the text it was sent
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length && problems.has(e.document.uri)) problems.delete(e.document.uri);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => problems.delete(doc.uri)),
  );

  const run = async (what: 'Validate TML' | 'Import TML', arg: unknown): Promise<TmlCommandResult | undefined> => {
    const doc = await tmlDocument(arg);
    if (!doc) {
      void vscode.window.showWarningMessage(`TSQ: open a TML file first (${TML_KIND_NAMES.map((k) => TML_KINDS[k].suffix).join(', ')}).`);
      return undefined;
    }
    const name = doc.uri.path.split('/').pop() ?? doc.uri.path;
    problems.delete(doc.uri);
    try {
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `TSQ: ${what === 'Validate TML' ? 'validating' : 'importing'} ${name}…` }, async () => {
        const api = await client.connections.getClient();
        const [file] = await checkTmlTexts(api, [{ uri: doc.uri.toString(), text: doc.getText() }]);
        const f = file as TmlFile;
        const local = f.diagnostics.filter(isTmlError).length;
        if (local) return { status: 'NOT_SENT' as const, local, file: f };
        if (what === 'Validate TML') {
          await validateTmlOnService(api, [f]);
          const service = f.diagnostics.filter((d) => d.code === TML_SERVICE_CODE);
          return { status: service.some(isTmlError) ? ('ERROR' as const) : service.length ? ('WARNING' as const) : ('OK' as const), local, file: f };
        }
        const [o] = await importTmlFiles(api, [f], 'PARTIAL');
        return { status: o!.status, guid: o!.guid, local, file: f };
      });
      const service = result.file.diagnostics.filter((d) => d.code === TML_SERVICE_CODE);
      problems.set(doc.uri, service.map(toVscode));
      const first = service[0] && textOf(service[0]).replace(/^the service: /, '');
      if (result.status === 'NOT_SENT') void vscode.window.showErrorMessage(`TSQ: ${name} has ${result.local} error${result.local === 1 ? '' : 's'} (see Problems): it was not sent to the service.`);
      else if (result.status === 'ERROR') void vscode.window.showErrorMessage(`TSQ: the service refused ${name}: ${first ?? 'no reason given'}`);
      else if (what === 'Import TML') void vscode.window.showInformationMessage(`TSQ: ${name} imported${result.guid ? ` as ${result.guid}` : ''}${first ? ` (warning: ${first})` : ''}.`);
      else void vscode.window.showInformationMessage(`TSQ: the service accepts ${name}${first ? ` (warning: ${first})` : ''}.`);
      return { status: result.status, ...('guid' in result && result.guid ? { guid: result.guid } : {}), problems: service.map((d) => ({ line: d.range.start.line, message: textOf(d) })) };
    } catch (e) {
      log.error(`${what} of ${name} failed: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`TSQ: ${what} of ${name} failed: ${errorMessage(e)}`, 'Show Log').then((c) => c && log.show());
      return undefined;
    }
  };
  extension.subscriptions.push(
    vscode.commands.registerCommand('tsq.validateTml', (arg?: unknown) => run('Validate TML', arg)),
    vscode.commands.registerCommand('tsq.importTml', (arg?: unknown) => run('Import TML', arg)),
  );
}
