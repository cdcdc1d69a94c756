/**
 * Redaction of secrets (a password, a token, a secret key, a session cookie) from text that leaves the
 * process: the agent tools' answers (`tsq mcp`, VS Code's language-model tools, common/src/agent/tools.ts)
 * and the log lines of `tsq` (cli/src/output.ts), of `tsq lsp` (server/src/nodeServer.ts) and of VS Code's
 * `TSQ` channel (client/src/log.ts). One rule for every front end. A service may echo a login in an error
 * message in any encoding it met or made, so a secret is removed in every form, not only as given:
 * character by character in any mix of raw, percent, form, JSON and HTML forms (`secretPattern`), and
 * inside base64 or base64url blobs (`base64Cores`). Short secrets are not redacted by value
 * (`MIN_REDACTED_LENGTH`). Not covered: a secret encoded twice (`%2521`, `\u0026lt;`; the agent tools
 * redact a value before they JSON-encode it into a data block, so their own encoding is not a second
 * one), base64 wrapped over several lines, other encodings (hex, UTF-16 bytes). Pure: no I/O.
 */

/** The text that replaces a secret. */
export const REDACTED = '[redacted]';

/**
 * Secrets shorter than this many characters (code points) are not redacted by value. Removing every `a`
 * of an answer would destroy it and still tell the password (the gaps spell it), and a base64 core of one
 * or two characters matches inside any blob. Such a password is found by guessing anyway; `tsq mcp` says
 * on stderr at start that it cannot be kept out of answers (`shortSecrets`). The shapes of `redact`
 * (`password=…`, `Bearer …`) still apply to it.
 */
export const MIN_REDACTED_LENGTH = 4;

/** `Bearer …`, `token=…`, `"token":"…"` forms, redacted even when the secret is not known by value. */
const SHAPES: RegExp[] = [/(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, /((?:access_?token|auth_?token|token|password|secret_key)["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi];

/** Hex digits of `n` (at least `width`), each letter matching either case: `3c` → `3[cC]`. */
function hexEitherCase(n: number, width = 1): string {
  return n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** JSON's short escapes (RFC 8259 §7). */
const JSON_SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** HTML's named character references for the characters that escapers write by name (both cases where HTML has both). */
const HTML_NAMED: Record<string, string[]> = { '&': ['&amp;', '&AMP;'], '<': ['&lt;', '&LT;'], '>': ['&gt;', '&GT;'], '"': ['&quot;', '&QUOT;'], "'": ['&apos;'] };

/** The regular expression (source) matching one character `ch` (a code point) in any of its forms. */
function characterForms(ch: string): string {
  const cp = ch.codePointAt(0)!;
  // the escaped forms before the character itself: `\\` is one backslash escaped, not two
  const forms: string[] = [];
  if (ch === ' ') forms.push('\\+');
  forms.push([...new TextEncoder().encode(ch)].map((b) => `%${hexEitherCase(b, 2)}`).join(''));
  const units = ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [cp];
  forms.push(units.map((u) => `\\\\u${hexEitherCase(u, 4)}`).join(''));
  if (JSON_SHORT[ch]) forms.push(escapeRegExp(JSON_SHORT[ch]));
  forms.push(`&#0*${cp};`, `&#[xX]0*${hexEitherCase(cp)};`);
  for (const name of HTML_NAMED[ch] ?? []) forms.push(escapeRegExp(name));
  forms.push(escapeRegExp(ch));
  return `(?:${forms.join('|')})`;
}

/**
 * The pattern that matches `secret` with each of its characters in any of its forms, mixed freely within
 * one occurrence: itself; percent-encoded, its UTF-8 bytes as `%XX` in either case of hex
 * (`encodeURIComponent`, `encodeURI`, RFC 3986 §2.1); a space as `+` (`application/x-www-form-urlencoded`
 * as `URLSearchParams` writes it, https://url.spec.whatwg.org/#urlencoded-serializing); JSON-escaped,
 * `\uXXXX` for each UTF-16 code unit and the short escapes `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`
 * (RFC 8259 §7); HTML-escaped, as the named references `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and as the
 * numeric ones `&#39;` `&#x27;` (decimal or hex, any case, leading zeros) for any character
 * (https://html.spec.whatwg.org/multipage/syntax.html#character-references). Global (`g`),
 * case-sensitive except for hex digits and the `x` of `&#x`.
 */
export function secretPattern(secret: string): RegExp {
  return new RegExp([...secret].map(characterForms).join(''), 'g');
}

/**
 * Base64 and base64url (RFC 4648 §4, §5), inside a longer blob too, such as the `user:password` of a
 * Basic `Authorization` header: base64 writes 3 bytes as 4 characters, so the secret's characters depend
 * on its offset in the blob modulo 3, and for each offset the characters that only the secret's own bits
 * determine are the same in every blob that holds the secret there. Where one is found, the whole run of
 * base64 characters around it (and its `=` padding) is replaced, so no character carrying part of the
 * secret's first or last byte stays.
 *
 * The base64 and base64url characters that `secret` (as UTF-8) gives at each offset modulo 3 inside a
 * blob: for offset k, the characters of base64(k zero bytes + secret) whose 6 bits lie wholly within the
 * secret's bits (from character ⌈8k/6⌉ to before ⌊8(k+n)/6⌋, n the secret's length in bytes). Empty ones
 * are left out; duplicates (when base64 and base64url agree) once.
 */
export function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const blob = Buffer.concat([Buffer.alloc(k), bytes]);
    const from = Math.ceil((8 * k) / 6);
    const to = Math.floor((8 * (k + bytes.length)) / 6);
    if (to <= from) continue;
    for (const encoding of ['base64', 'base64url'] as const) out.add(blob.toString(encoding).slice(from, to));
  }
  return [...out];
}

/** A character of the base64 or base64url alphabet. */
const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** `text` with every run of base64 characters holding one of `cores` replaced by `REDACTED`. */
function redactBase64(text: string, cores: readonly string[]): string {
  let out = text;
  for (const core of cores) {
    let at = out.indexOf(core);
    while (at >= 0) {
      let start = at;
      let end = at + core.length;
      while (start > 0 && BASE64_CHAR.test(out[start - 1])) start--;
      while (end < out.length && BASE64_CHAR.test(out[end])) end++;
      while (end < out.length && out[end] === '=') end++;
      out = out.slice(0, start) + REDACTED + out.slice(end);
      at = out.indexOf(core, start + REDACTED.length);
    }
  }
  return out;
}

/** The compiled forms of the secrets seen lately (a long-running server meets the same few again and again). */
const compiled = new Map<string, { pattern: RegExp; cores: string[] }>();
const COMPILED_KEPT = 64;

function formsOf(secret: string): { pattern: RegExp; cores: string[] } {
  let forms = compiled.get(secret);
  if (!forms) {
    forms = { pattern: secretPattern(secret), cores: base64Cores(secret) };
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(secret, forms);
  }
  return forms;
}

/** Whether `secret` is too short to be redacted by value (fewer than `MIN_REDACTED_LENGTH` code points; the empty string included). */
export function isShortSecret(secret: string): boolean {
  return [...secret].length < MIN_REDACTED_LENGTH;
}

/** The secrets of `secrets` that are not redacted by value because they are short (`isShortSecret`), empty ones left out. */
export function shortSecrets(secrets: Iterable<string>): string[] {
  return [...secrets].filter((s) => s !== '' && isShortSecret(s));
}

/**
 * `text` with every secret of `secrets` replaced by `REDACTED` in each of its forms (raw, percent- and
 * form-encoded, JSON- and HTML-escaped, base64 and base64url at any offset: see the module's comment),
 * and nothing else changed. Longer secrets first, so one inside another goes with it. Secrets shorter than
 * `MIN_REDACTED_LENGTH` are left alone. For values kept as they are otherwise (a cell, a name).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secretRedactor(secrets)(text);
}

/**
 * `redactSecrets` for many texts with the same secrets (every string of a structured answer): the secrets
 * sorted and their forms compiled once.
 * @returns a function from a text to that text with the secrets removed.
 */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets)]
    .filter((s) => !isShortSecret(s))
    .sort((a, b) => b.length - a.length)
    .map(formsOf);
  if (forms.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const { pattern, cores } of forms) out = redactBase64(out, cores).replace(pattern, REDACTED);
    return out;
  };
}

/**
 * `redactSecrets`, then anything shaped like a credential even when its value is not known: `Bearer …`
 * (8 characters or more) and the value of a `password=`, `token:`, `"access_token":"…"`, `secret_key=` pair.
 * For text a tool or a log writes.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = redactSecrets(text, secrets);
  for (const re of SHAPES) out = out.replace(re, `$1${REDACTED}`);
  return out;
}
