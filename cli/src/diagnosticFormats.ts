/**
 * How `tsq check` and `tsq tml validate` print diagnostics:
 *
 * - `text`: `file:line:col: severity: message [code]` (lines and columns 1-based, columns in UTF-16 units
 *   as LSP counts them), as gcc and tsc print them, for CI logs and editors' problem matchers;
 * - `github`: GitHub Actions workflow commands, `::error file=F,line=L,col=C,endLine=…,endColumn=…,title=CODE::MESSAGE`
 *   (every value escaped: common/src/terminalText.ts `workflowCommand`),
 *   so a pull request shows each problem on its line
 *   (https://docs.github.com/actions/reference/workflow-commands-for-github-actions#setting-an-error-message);
 * - `sarif`: one SARIF 2.1.0 log on stdout (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html),
 *   for code-scanning uploads.
 */
import { pathToFileURL } from 'node:url';
import { relative, resolve, sep } from 'node:path';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { write } from './output';
import { terminalSafe, workflowCommand } from '../../common/src/terminalText';

/** The output formats of diagnostics. */
export const DIAGNOSTIC_FORMATS = ['text', 'github', 'sarif'] as const;
/** One of DIAGNOSTIC_FORMATS. */
export type DiagnosticFormat = (typeof DIAGNOSTIC_FORMATS)[number];

const SEVERITY: Record<number, string> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'hint',
};

const messageOf = (d: Diagnostic): string => (typeof d.message === 'string' ? d.message : (d.message as { value: string }).value).replace(/\s*\n\s*/g, ' ');

/** One diagnostic as a compiler-style line (without the newline). */
export function formatDiagnostic(file: string, d: Diagnostic): string {
  const code = d.code !== undefined ? ` [${String(d.code)}]` : '';
  // a column or data source name from the service inside the message is shown escaped (terminalSafe)
  return terminalSafe(`${file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${SEVERITY[d.severity ?? DiagnosticSeverity.Error]}: ${messageOf(d)}${code}`);
}

/**
 * One diagnostic as a GitHub Actions workflow command (`::error file=…,line=…::message`) through
 * `workflowCommand` (common/src/terminalText.ts): the file name, the code and the message with their
 * controls and line breaks shown escaped, then the toolkit's escapes. Information and hints are notices.
 */
export function githubAnnotation(file: string, d: Diagnostic): string {
  const sev = d.severity ?? DiagnosticSeverity.Error;
  const kind = sev === DiagnosticSeverity.Error ? 'error' : sev === DiagnosticSeverity.Warning ? 'warning' : 'notice';
  const props: Record<string, string | number> = { file, line: d.range.start.line + 1, col: d.range.start.character + 1, endLine: d.range.end.line + 1, endColumn: d.range.end.character + 1 };
  if (d.code !== undefined) props.title = String(d.code);
  return workflowCommand(kind, props, messageOf(d));
}

/** The diagnostics of some files as one SARIF 2.1.0 log (tool `tsq`, one result per diagnostic, URIs relative to the working folder). */
export function sarifLog(files: { file: string; diagnostics: Diagnostic[] }[], version = '0.0.0'): Record<string, unknown> {
  const rules = new Set<string>();
  const results = files.flatMap(({ file, diagnostics }) =>
    diagnostics.map((d) => {
      const rel = relative(process.cwd(), resolve(file));
      const uri = rel.startsWith('..') ? pathToFileURL(resolve(file)).toString() : rel.split(sep).map(encodeURIComponent).join('/');
      const sev = d.severity ?? DiagnosticSeverity.Error;
      if (d.code !== undefined) rules.add(String(d.code));
      return {
        ...(d.code !== undefined ? { ruleId: String(d.code) } : {}),
        level: sev === DiagnosticSeverity.Error ? 'error' : sev === DiagnosticSeverity.Warning ? 'warning' : 'note',
        message: { text: messageOf(d) },
        locations: [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: d.range.start.line + 1, startColumn: d.range.start.character + 1, endLine: d.range.end.line + 1, endColumn: d.range.end.character + 1 } } }],
      };
    }),
  );
  return {
    version: '2.1.0',
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    runs: [{ tool: { driver: { name: 'tsq', version, informationUri: 'https://github.com/', rules: [...rules].sort().map((id) => ({ id })) } }, columnKind: 'utf16CodeUnits', results }],
  };
}

/** Prints the diagnostics of some files to stdout in `format` (sarif: one log for all files). */
export async function printDiagnostics(files: { file: string; diagnostics: Diagnostic[] }[], format: DiagnosticFormat): Promise<void> {
  if (format === 'sarif') {
    await write(process.stdout, `${JSON.stringify(sarifLog(files), null, 1)}\n`);
    return;
  }
  for (const { file, diagnostics } of files) {
    const sorted = [...diagnostics].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    for (const d of sorted) await write(process.stdout, `${format === 'github' ? githubAnnotation(file, d) : formatDiagnostic(file, d)}\n`);
  }
}
