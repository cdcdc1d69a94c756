/**
 * Output of the command line: answers go to stdout, everything else (progress, warnings, errors) to
 * stderr, as command-line tools do. Writes to stdout wait when the pipe is full, and a closed pipe
 * (`tsq query … | head`) ends the run quietly.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { redact } from '../../common/src/redaction';
import { terminalSafe } from '../../common/src/terminalText';

/** The secrets in use, read at each line written to stderr; none until `redactLogOf` names them. */
let logSecrets: () => readonly string[] = () => [];

/**
 * Names the secrets in use (the connection's password, token, secret key, what its client holds), read
 * each time a line goes to stderr: from then on every message of `info`, `warn`, the error line and the
 * progress lines has them removed in each of their forms (common/src/redaction.ts `redact`). A service that
 * echoes a login in its error text puts it in a warning otherwise.
 */
export function redactLogOf(secrets: () => readonly string[]): void {
  logSecrets = secrets;
}

/** `text` with the secrets in use (`redactLogOf`) and credential shapes removed: for every line to stderr. */
export function redactLog(text: string): string {
  return redact(text, logSecrets());
}

/** Writes `text` to a stream, waiting for it to drain when its buffer is full. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/**
 * A message made safe for the terminal: the secrets in use removed (`redactLog`), each of its lines through `terminalSafe`
 * (common/src/terminalText.ts), so that a value from a file or the service inside it (a name, a cell, the
 * service's own text) cannot move the cursor, erase a line or set the window title. The message's own
 * line breaks (LF or CRLF, written as LF) are kept; the places that insert a value escape it whole.
 */
export function terminalMessage(message: string): string {
  return redactLog(message).split(/\r?\n/).map(terminalSafe).join('\n');
}

/** A message for the person at the terminal (stderr), through `terminalMessage`. */
export function info(message: string): void {
  process.stderr.write(`${terminalMessage(message)}\n`);
}

/** A warning (stderr), prefixed `tsq: warning:`, through `terminalMessage`. */
export function warn(message: string): void {
  process.stderr.write(`tsq: warning: ${terminalMessage(message)}\n`);
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
