/**
 * The type guards of common/src/guards.ts that narrow a value to a `const` list's members: the check they
 * make at run time is the one a cast would only assert.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectOneOf, isOneOf } from '../../common/src/guards';

const SIDES = ['top', 'bottom'] as const;

test('isOneOf narrows to the list and refuses what is not in it', () => {
  assert.equal(isOneOf(SIDES, 'top'), true);
  assert.equal(isOneOf(SIDES, 'Top'), false);
  assert.equal(isOneOf(SIDES, undefined), false);
});

test('expectOneOf returns a member and throws, naming the value and the list, on anything else', () => {
  const side: 'top' | 'bottom' = expectOneOf(SIDES, 'bottom', 'side');
  assert.equal(side, 'bottom');
  assert.throws(() => expectOneOf(SIDES, 'left', 'side'), /"left" is no side \(one of top, bottom\)/);
});
