// The one redaction of secrets (common/src/redaction.ts) that every front end applies to what leaves the
// process: each form a service may echo a secret in, a secret inside a base64 blob at each offset, short
// secrets, and text that must stay as it was. End to end through `tsq mcp`: test/cli/mcp.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_REDACTED_LENGTH, REDACTED, redact, redactSecrets, shortSecrets } from '../../common/src/redaction';

/** The brief's password, with the characters each encoding treats in its own way (quote, backslash, slash, ampersand, a non-ASCII letter). */
const SECRET = `Winter 2026! <ok> & "q" 'é'/\\`;

/** Every form of `s` a service could echo, by name. */
function formsOf(s: string): Record<string, string> {
  const html = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return {
    raw: s,
    encodeURIComponent: encodeURIComponent(s),
    encodeURI: encodeURI(s),
    lowercasePercent: encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    form: new URLSearchParams({ p: s }).toString().slice(2),
    json: JSON.stringify(s).slice(1, -1),
    jsonEveryCharEscaped: [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    htmlNamedAnd39: html(s).replace(/'/g, '&#39;'),
    htmlNamedAndX27: html(s).replace(/'/g, '&#x27;'),
    htmlApos: html(s).replace(/'/g, '&apos;'),
    htmlDecimal: [...s].map((c) => `&#${c.codePointAt(0)};`).join(''),
    htmlHexUpper: [...s].map((c) => `&#X${c.codePointAt(0)!.toString(16).toUpperCase()};`).join(''),
    base64: Buffer.from(s).toString('base64'),
    base64url: Buffer.from(s).toString('base64url'),
  };
}

test('a secret is removed in each form a service may echo it in, and the text around it stays', () => {
  for (const [name, form] of Object.entries(formsOf(SECRET))) {
    const text = `login failed for tsadmin (${form}) at 10:02`;
    const out = redactSecrets(text, [SECRET]);
    assert.equal(out, `login failed for tsadmin (${REDACTED}) at 10:02`, name);
  }
});

test('forms mixed within one occurrence (some characters percent-encoded, some HTML-escaped) are removed too', () => {
  const mixed = 'Winter+2026%21 &lt;ok&#62; &amp; \\"q\\" &#x27;%C3%A9&#39;%2F\\\\';
  assert.equal(redactSecrets(`x ${mixed} y`, [SECRET]), `x ${REDACTED} y`);
});

test('a secret inside a base64 or base64url blob is removed at each offset modulo 3, the whole blob with it', () => {
  for (const prefix of ['tsadmin:', 'tsadmin:x', 'tsadmin:xy', '', 'a', 'ab']) {
    for (const suffix of ['', '!', '!!', '!!!']) {
      const blob = Buffer.from(`${prefix}${SECRET}${suffix}`);
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = blob.toString(encoding);
        const out = redactSecrets(`Authorization: Basic ${encoded}, retry`, [SECRET]);
        assert.equal(out, `Authorization: Basic ${REDACTED}, retry`, `${encoding} of ${JSON.stringify(prefix)} + secret + ${JSON.stringify(suffix)}`);
      }
    }
  }
  // a blob that does not hold the secret stays
  const other = Buffer.from('tsadmin:another password').toString('base64');
  assert.equal(redactSecrets(`Basic ${other}`, [SECRET]), `Basic ${other}`);
});

test('several secrets, one inside another; an unknown token in a credential shape; nothing else changes', () => {
  const token = 'eyJhbGciOi.payload-Token_7781';
  assert.equal(redactSecrets(`${token} and ${token.slice(0, 12)}`, [token.slice(0, 12), token]), `${REDACTED} and ${REDACTED}`);
  assert.equal(redact('Authorization: Bearer abcdefghijklmnop.qrs; token=xyz123', []), `Authorization: Bearer ${REDACTED}; token=${REDACTED}`);
  const plain = 'flights: 12 rows, origin SEA, 50% of [delay] > 10 & "ok" <done> ; base64 aGVsbG8gd29ybGQ=';
  assert.equal(redact(plain, [SECRET, 'Mcp-unmistakable-Secret-5521']), plain);
  assert.equal(redact(plain, []), plain);
});

test(`a secret shorter than ${MIN_REDACTED_LENGTH} characters is not redacted by value (it would spell itself out and wreck the text), but its credential shape is`, () => {
  const text = 'a banana; password=ab; base64 YWI=';
  assert.equal(redactSecrets(text, ['a', 'ab', '', 'ab ']), text);
  assert.equal(redact(text, ['ab']), `a banana; password=${REDACTED}; base64 YWI=`);
  assert.deepEqual(shortSecrets(['a', '', 'abc', 'abcd', 'é😀x']), ['a', 'abc', 'é😀x']);
  // four characters are redacted, in every form
  assert.equal(redactSecrets('x a&b! y', ['a&b!']), `x ${REDACTED} y`);
  assert.equal(redactSecrets(`x ${Buffer.from('u:a&b!').toString('base64')} y`, ['a&b!']), `x ${REDACTED} y`);
});
