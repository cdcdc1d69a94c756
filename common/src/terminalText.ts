/**
 * Text from a file or from the service, made safe for a terminal. A connection name in a cloned
 * repository's `tsq.json`, a cell, a data source's name: any of them can hold a carriage return, an ANSI
 * escape sequence (`ESC[2K` erases the line, an OSC sequence sets the window title or a hyperlink) or a
 * bidirectional override, and a terminal obeys them. Printed raw, such a value can rewrite the very line
 * that says where a password would go. Every front end that writes to a terminal (`tsq`'s messages,
 * tables and `tsq trust`) passes such text through `terminalSafe`; JSON and CSV output stay exact.
 */

/**
 * The characters a terminal may act on rather than show: the C0 controls (U+0000–U+001F: NUL, BEL, BS,
 * TAB, LF, CR, ESC, …), DEL (U+007F), the C1 controls (U+0080–U+009F; U+009B is a one-byte CSI, U+009D an
 * OSC), the line and paragraph separators (U+2028, U+2029), and the bidirectional embeddings, overrides
 * and isolates (U+202A–U+202E, U+2066–U+2069, the "Trojan Source" characters, CVE-2021-42574).
 * ECMA-48 (https://ecma-international.org/publications-and-standards/standards/ecma-48/) defines the
 * controls; Unicode UAX #9 the bidirectional ones.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * `text` with every character of `UNSAFE` shown escaped, so that a terminal prints it instead of acting
 * on it: `\n`, `\r`, `\t` and `\e` (ESC) by name, the rest as `\xHH` (up to U+00FF) or `\uHHHH`. Every other
 * character is kept. The result has no control character at all: a whole escape sequence such as
 * `ESC]0;title BEL` appears as the visible text `\e]0;title\x07`.
 * @param text any text (a value from a file, a cell, a message of the service).
 * @returns the text to print; equal to `text` when it holds nothing unsafe.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

