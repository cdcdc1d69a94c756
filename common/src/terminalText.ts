/**
 * The one gate of text bound for a terminal or a CI log. A connection name in a cloned repository's
 * `tsq.json`, a file or folder name a glob matched, a cell, a data source's name, the service's own
 * message: any of them can hold a line break, a carriage return, an ANSI escape sequence (`ESC[2K` erases
 * the line, an OSC sequence sets the window title or a hyperlink) or a bidirectional override, and a
 * terminal obeys them; a line break followed by `::error …` is a workflow command to GitHub's runner,
 * which reads every line of a job's log. Printed raw, such a value can rewrite the very line that says
 * where a password would go, or forge an annotation. Text for a person passes through here: `terminalSafe`
 * for a value, `terminalText` for a message with values in it, `forTerminal` to print either,
 * `workflowCommand` for `--format github`; a file name written to disk is cleaned of the same characters
 * (`replaceUnsafe`). JSON, CSV and SARIF output stay exact: their own formats escape them.
 */

/**
 * The characters a terminal may act on rather than show, as the body of a regular-expression class: the
 * C0 controls (U+0000–U+001F: NUL, BEL, BS, TAB, LF, CR, ESC, …), DEL (U+007F), the C1 controls
 * (U+0080–U+009F; U+0085 is NEL, U+009B a one-byte CSI, U+009D an OSC), the line and paragraph separators
 * (U+2028, U+2029), and the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E,
 * U+200F, U+202A–U+202E, U+2066–U+2069, the "Trojan Source" characters, CVE-2021-42574).
 * ECMA-48 (https://ecma-international.org/publications-and-standards/standards/ecma-48/) defines the
 * controls; Unicode UAX #9 the bidirectional ones. Declared once: `terminalSafe` and `replaceUnsafe` use it.
 */
const UNSAFE_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * The second `#` of `##[`: GitHub's runner reads the legacy form of a workflow command, `##[name props]data`,
 * anywhere in a line, not only at its start (actions/runner, src/Runner.Common/ActionCommand.cs `TryParse`,
 * tried when the `::name::` form does not match), so a name holding `##[error]…` or `##[stop-commands]…`
 * needs no line break to be obeyed.
 */
const LEGACY_COMMAND = /(?<=#)#(?=\[)/g;

/**
 * `text` with every unsafe character (C0, DEL, C1, U+2028/2029, bidi controls) shown escaped, so that a
 * terminal prints it instead of acting on it: `\n`, `\r`, `\t` and `\e` (ESC) by name, the rest as `\xHH`
 * (up to U+00FF) or `\uHHHH`; and the second `#` of `##[` as `\x23`, so that a CI log does not read it as a
 * legacy workflow command (`LEGACY_COMMAND`). Every other character is kept. The result has no control
 * character and no line break at all: a whole escape sequence such as `ESC]0;title BEL` appears as the
 * visible text `\e]0;title\x07`, `##[error]` as `#\x23[error]`.
 * @param text any text (a value from a file, a cell, a message of the service).
 * @returns the text to print, on one line; equal to `text` when it holds nothing unsafe.
 */
export function terminalSafe(text: string): string {
  return text
    .replace(UNSAFE, (c) => {
      const named = NAMED[c];
      if (named) return named;
      const code = c.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    })
    .replace(LEGACY_COMMAND, '\\x23');
}

/**
 * `text` with every unsafe character of `terminalSafe` replaced by `replacement`: for a name that becomes
 * part of a file name (`tsq tml export`), which must neither carry a control nor look like another.
 */
export function replaceUnsafe(text: string, replacement: string): string {
  return text.replace(UNSAFE, replacement);
}

/**
 * A message for a terminal whose every part from outside was escaped: made only by the tag
 * `terminalText`, so an output helper that takes one cannot be handed raw text by mistake.
 */
export class TerminalText {
  private constructor(
    /** The text to print: tsq's own words as written (line breaks included), each value through `terminalSafe`. */
    readonly text: string,
  ) {}

  /** The message of a `terminalText` template (see there). */
  static of(strings: TemplateStringsArray, values: readonly unknown[]): TerminalText {
    return new TerminalText(strings.reduce((out, s, i) => out + s + (i < values.length ? shownValue(values[i]) : ''), ''));
  }

  /** The text, so that a TerminalText inside a template literal reads as its text. */
  toString(): string {
    return this.text;
  }
}

const shownValue = (v: unknown): string => (v instanceof TerminalText ? v.text : terminalSafe(String(v)));

/**
 * The tag of a message for a terminal: `terminalText\`${file} cannot be read\``. The template's literal
 * parts are tsq's own text and are kept as written (a line break there stays one); every `${value}` is
 * escaped whole by `terminalSafe` (its line breaks too), except a TerminalText, already made safe.
 */
export function terminalText(strings: TemplateStringsArray, ...values: unknown[]): TerminalText {
  return TerminalText.of(strings, values);
}

/**
 * The text to print of a message: a TerminalText as it was made; any other text is taken as coming from
 * outside and escaped whole (`terminalSafe`: one line). The output helpers of every front end print
 * through this.
 */
export function forTerminal(message: TerminalText | string): string {
  return message instanceof TerminalText ? message.text : terminalSafe(message);
}

/**
 * `text` line by line through `terminalSafe`, its line breaks (LF or CRLF, written LF) kept: for a text
 * whose lines are the data (a bad-records file shown on a terminal), never for a message.
 */
export function terminalLines(text: string): string {
  return text.split(/\r?\n/).map(terminalSafe).join('\n');
}

/**
 * A workflow command's value escaped as GitHub's toolkit does (`escapeData` of @actions/core: `%` → `%25`,
 * CR → `%0D`, LF → `%0A`; with `property`, `escapeProperty`: also `:` → `%3A`, `,` → `%2C`), after
 * `terminalSafe`: a CI log is a terminal too, so its controls and line breaks are shown escaped first (a
 * file name with a line break is shown `\n`, as on a terminal), and no value can end the command or the line.
 */
function workflowValue(value: string, property: boolean): string {
  const data = terminalSafe(value).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return property ? data.replace(/:/g, '%3A').replace(/,/g, '%2C') : data;
}

/**
 * One GitHub Actions workflow command, `::name key=value,…::message` (without the line break), every
 * property value and the message through `workflowValue`
 * (https://docs.github.com/actions/reference/workflow-commands-for-github-actions).
 * @param name the command (`error`, `warning`, `notice`): tsq's own word, not escaped.
 * @param properties the properties in order (`file`, `line`, `col`, …); numbers as written.
 * @param message the command's data.
 */
export function workflowCommand(name: string, properties: Readonly<Record<string, string | number>>, message: string): string {
  const props = Object.entries(properties).map(([k, v]) => `${k}=${workflowValue(String(v), true)}`);
  return `::${name}${props.length ? ` ${props.join(',')}` : ''}::${workflowValue(message, false)}`;
}
