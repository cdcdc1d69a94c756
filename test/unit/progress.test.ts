// The one progress rule of the command line (cli/src/progress.ts): a bar only on a terminal, and not
// with --no-progress or under CI; the rate as a person reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { perSecond, progressMode } from '../../cli/src/progress';

test('a bar on a terminal; lines off one, with --no-progress, or when CI is set (not to 0 or false)', () => {
  const tty = { isTTY: true };
  assert.equal(progressMode({}, tty, {}), 'bar');
  assert.equal(progressMode({ progress: true }, tty, { CI: '' }), 'bar');
  assert.equal(progressMode({ progress: true }, tty, { CI: 'false' }), 'bar');
  assert.equal(progressMode({ progress: true }, tty, { CI: '0' }), 'bar');
  assert.equal(progressMode({}, { isTTY: false }, {}), 'lines');
  assert.equal(progressMode({}, {}, {}), 'lines');
  assert.equal(progressMode({ progress: false }, tty, {}), 'lines');
  assert.equal(progressMode({}, tty, { CI: 'true' }), 'lines');
  assert.equal(progressMode({}, tty, { CI: '1' }), 'lines');
});

test('rates: whole numbers from 100 a second, one decimal below; nothing done in no time is 0', () => {
  assert.equal(perSecond(1000, 800), '1,250');
  assert.equal(perSecond(5, 100), '50.0');
  assert.equal(perSecond(0, 0), '0.0');
});
