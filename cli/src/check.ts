/**
 * `tsq check FILE.tsq… FILE.answer.tml… FILE.liveboard.tml…`: the language server's diagnostics
 * (common/src/languageService; a TML file's routed by its suffix through common/src/tml/tmlService.ts) against the live
 * catalog (common/src/catalog), one line per diagnostic in the compiler-style format
 * `file:line:col: severity: message [code]` (lines and columns 1-based, columns in UTF-16 units as LSP
 * counts them), as gcc and tsc print them, so that CI logs and editors' problem matchers read them.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { printDiagnostics, type DiagnosticFormat } from './diagnosticFormats';
import type { AnalyticsServiceClient } from '../../common/src/api';
import { getLanguageService } from '../../common/src/languageService/languageService';
import type { LanguageSettings } from '../../common/src/languageService/types';
import { ServiceCatalogProvider } from '../../common/src/catalog';
import { withTml } from '../../common/src/tml/tmlService';
import { readDocument } from './query';
import { info } from './output';

export { formatDiagnostic } from './diagnosticFormats';

/** What `tsq check` found. */
export interface CheckSummary {
  errors: number;
  warnings: number;
  files: number;
}

/**
 * Checks the files and prints their diagnostics to stdout.
 * @param client the connection's client, or undefined for `--offline` (syntax only).
 * @throws the service's error when the catalog could not be read (authentication, network…): a check
 *   without the catalog would pass files it cannot judge.
 */
export async function runCheckCommand(client: AnalyticsServiceClient | undefined, files: string[], settings: LanguageSettings, format: DiagnosticFormat = 'text'): Promise<CheckSummary> {
  const catalog = client ? new ServiceCatalogProvider(client) : undefined;
  const service = withTml(getLanguageService({ catalog }));
  const summary: CheckSummary = { errors: 0, warnings: 0, files: files.length };
  const found: { file: string; diagnostics: Diagnostic[] }[] = [];
  for (const file of files) {
    const document = await readDocument(file);
    const diagnostics = await service.doValidation(document, settings);
    if (catalog?.lastError) throw catalog.lastError;
    diagnostics.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    for (const d of diagnostics) {
      if ((d.severity ?? DiagnosticSeverity.Error) === DiagnosticSeverity.Error) summary.errors++;
      else if (d.severity === DiagnosticSeverity.Warning) summary.warnings++;
    }
    found.push({ file, diagnostics });
  }
  await printDiagnostics(found, format);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  info(`${plural(summary.errors, 'error')}, ${plural(summary.warnings, 'warning')} in ${plural(summary.files, 'file')}${client ? '' : ' (syntax only: --offline)'}`);
  return summary;
}
