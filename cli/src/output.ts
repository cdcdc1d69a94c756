/**
 * Output of the command line: answers go to stdout, everything else (progress, warnings, errors) to
 * stderr, as command-line tools do. Text for a person goes through common/src/terminalText.ts (`writeLine`,
 * `info`, `warn`, `textTable`); `write` is for output exact by its own format (JSON, CSV, SARIF). Writes to stdout wait when the pipe is full, and a closed pipe
 * (`tsq query … | head`) ends the run quietly.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { redact } from '../../common/src/redaction';
import { forTerminal, terminalSafe, type TerminalText } from '../../common/src/terminalText';

/** The secrets in use, read at each line written for a person; none until `redactLogOf` names them. */
let logSecrets: () => readonly string[] = () => [];

/**
 * Names the secrets in use (the connection's password, token, secret key, what its client holds), read
 * each time a line is written for a person: from then on every message of `writeLine`, `printLine`, `info`,
 * `warn`, the error line and the progress lines has them removed in each of their forms
 * (common/src/redaction.ts `redact`). A service that echoes a login in its error text puts it in a warning otherwise.
 */
export function redactLogOf(secrets: () => readonly string[]): void {
  logSecrets = secrets;
}

/** `text` with the secrets in use (`redactLogOf`) and credential shapes removed. */
export function redactLog(text: string): string {
  return redact(text, logSecrets());
}

/**
 * The one gate of a line for a person: `forTerminal` (a `terminalText` message as made, any other text
 * escaped whole, on one line), then the secrets in use removed (`redactLog`).
 */
export function personLine(message: TerminalText | string): string {
  return redactLog(forTerminal(message));
}

/** Writes `text` to a stream, waiting for it to drain when its buffer is full. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/**
 * A line for the person at the terminal or a CI log on `stream` (stdout for an answer such as the files
 * `tsq tml export` wrote, stderr for the rest), through `personLine`: a
 * `terminalText` message as made (its values escaped), any other text escaped whole, on one line, no secret in it.
 */
export async function writeLine(stream: Writable, message: TerminalText | string): Promise<void> {
  await write(stream, `${personLine(message)}\n`);
}

/** `writeLine` without waiting for the stream to drain: a short message, or a command that runs synchronously (`tsq trust`). */
export function printLine(stream: Writable, message: TerminalText | string): void {
  stream.write(`${personLine(message)}\n`);
}

/** A message for the person at the terminal (stderr), through `personLine`: a plain string is escaped whole. */
export function info(message: TerminalText | string): void {
  printLine(process.stderr, message);
}

/** A warning (stderr), prefixed `tsq: warning:`, through `personLine`: a plain string is escaped whole. */
export function warn(message: TerminalText | string): void {
  process.stderr.write(`tsq: warning: ${personLine(message)}\n`);
}

/**
 * Lays rows out as a plain-text table: a header, a rule, then the rows, columns padded to their widest
 * cell (by UTF-16 length), numbers right-aligned where `rightAlign[i]` says so. Every header and cell goes
 * through `terminalSafe` (a line break, tab or escape sequence in a value is shown escaped, on its row).
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[], rightAlign: readonly boolean[] = []): string {
  const clean = terminalSafe;
  const widths = header.map((h, i) => Math.max(clean(h).length, ...rows.map((r) => clean(r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (rightAlign[i] ? clean(c ?? '').padStart(widths[i]) : clean(c ?? '').padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}

/** Bytes for a person: `512 B`, `12.3 KB`, `45.6 MB`, `1.2 GB` (binary units, one decimal). */
export function mb(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}
