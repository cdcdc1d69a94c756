/**
 * The typed readers of commander's options (cli/src/optionValues.ts) and the command handlers of
 * cli/src/main.ts, which read every option through them: no option is cast there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { choiceOf, count, flag, oneOf, text, texts, given } from '../../cli/src/optionValues';

test('each reader gives the value of its kind and absent for another kind', () => {
  assert.equal(text('a'), 'a');
  assert.equal(text(3), undefined);
  assert.deepEqual(texts(['a', 'b']), ['a', 'b']);
  assert.equal(texts(['a', 1]), undefined);
  assert.equal(flag(true), true);
  assert.equal(flag('true'), false);
  assert.equal(count(5), 5);
  assert.equal(count('5'), undefined);
  assert.equal(choiceOf('json', ['table', 'json'] as const), 'json');
  assert.equal(choiceOf('xml', ['table', 'json'] as const), undefined);
});

test('the readers of options commander always sets throw when the value is missing', () => {
  assert.equal(given(count(10), '--page-size'), 10);
  assert.throws(() => given(count(undefined), '--page-size'), /--page-size/);
  assert.equal(oneOf('csv', ['csv', 'json'] as const, '--format'), 'csv');
  assert.throws(() => oneOf('xml', ['csv', 'json'] as const, '--format'), /--format must be one of csv, json/);
});

test('the command handlers of cli/src/main.ts cast no option', () => {
  const source = readFileSync(join(__dirname, '../../cli/src/main.ts'), 'utf8');
  // an option is read from the parsed record (`raw`, `opts`, `program.opts()`); a cast of one is `… as T` after it
  const casts = source.split('\n').filter((line) => /\b(raw|opts)(\(\))?\.\w+\)? as \w/.test(line));
  assert.deepEqual(casts, []);
});
