// The gate of text bound for a terminal or a CI log (common/src/terminalText.ts), function by function:
// the unsafe set (bidi marks included), the `terminalText` tag (tsq's own line breaks kept, every value
// escaped whole), `forTerminal` (a plain string escaped whole), `workflowCommand` (GitHub's toolkit escapes
// after the gate) and `replaceUnsafe` (the export's file names). The real runs: test/cli/ci-log.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forTerminal, replaceUnsafe, terminalLines, terminalSafe, terminalText, workflowCommand } from '../../common/src/terminalText';

const FORGED = 'x\n::error file=app.js,line=1::forged\x1b]0;t\x07';

test('the bidi marks U+061C, U+200E and U+200F are unsafe too, with U+2028/2029, DEL and C1', () => {
  assert.equal(terminalSafe('a\u061cb\u200ec\u200fd\u2028e\u2029f\u007fg\u0085h\u009bi'), 'a\\u061cb\\u200ec\\u200fd\\u2028e\\u2029f\\x7fg\\x85h\\x9bi');
});

test("the runner's legacy `##[command]`, read anywhere in a line, is broken up; a lone # or [ is kept", () => {
  assert.equal(terminalSafe('a ##[error]b ###[add-mask]c #[d] # [e]'), 'a #\\x23[error]b ##\\x23[add-mask]c #[d] # [e]');
  assert.equal(terminalSafe(terminalSafe('##[error]')), '#\\x23[error]', 'escaping twice changes nothing');
});

test('terminalText keeps its own line breaks and escapes each value whole; a nested one is kept as made', () => {
  const inner = terminalText`(${FORGED})`;
  const m = terminalText`first ${FORGED}\nsecond ${inner} ${42}`;
  assert.equal(m.text, 'first x\\n::error file=app.js,line=1::forged\\e]0;t\\x07\nsecond (x\\n::error file=app.js,line=1::forged\\e]0;t\\x07) 42');
  assert.equal(forTerminal(m), m.text);
});

test('forTerminal escapes a plain string whole, its line breaks too', () => {
  assert.equal(forTerminal(`tsq: ${FORGED}`), 'tsq: x\\n::error file=app.js,line=1::forged\\e]0;t\\x07');
  assert.equal(forTerminal('plain words'), 'plain words');
});

test('terminalLines keeps the lines of a text that is data, each one escaped', () => {
  assert.equal(terminalLines('a\x1b[2K\r\nb\tc\n'), 'a\\e[2K\nb\\tc\n');
});

test("workflowCommand: the gate, then the toolkit's escapes; no value ends the line or the command", () => {
  const line = workflowCommand('error', { file: `dir/${FORGED}%.tsq`, line: 3, title: 'a,b:c' }, `50% ${FORGED}`);
  assert.equal(line, '::error file=dir/x\\n%3A%3Aerror file=app.js%2Cline=1%3A%3Aforged\\e]0;t\\x07%25.tsq,line=3,title=a%2Cb%3Ac::50%25 x\\n::error file=app.js,line=1::forged\\e]0;t\\x07');
  assert.doesNotMatch(line, /[\u0000-\u001f]/);
  assert.equal(workflowCommand('notice', {}, 'done'), '::notice::done');
});

test('replaceUnsafe replaces the same set, one replacement per character', () => {
  assert.equal(replaceUnsafe('N\r\u009b2J\u007f\u202eevil\u200e\u061c\u2028.', '_'), 'N__2J__evil___.');
});
