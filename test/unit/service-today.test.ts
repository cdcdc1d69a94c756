// The pure parts of common/src/api/serviceToday.ts: how long a 429 waits, and when the waiting stops.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rateLimitHooks, retryDelay } from '../../common/src/api';

describe('retryDelay', () => {
  test('Retry-After in seconds is honoured, with at most 25% jitter added', () => {
    assert.equal(retryDelay(1, '2', () => 0), 2000);
    assert.equal(retryDelay(1, '2', () => 1), 2500);
    assert.equal(retryDelay(5, '0', () => 0.5), 0);
  });
  test('an HTTP date in Retry-After counts from now', () => {
    const d = retryDelay(1, new Date(Date.now() + 60_000).toUTCString(), () => 0);
    assert.ok(d > 50_000 && d <= 60_000, String(d));
  });
  test('without Retry-After: exponential from 100 ms, capped at 5 s', () => {
    assert.deepEqual([1, 2, 3, 4, 10].map((a) => retryDelay(a, undefined, () => 0)), [100, 200, 400, 800, 5000]);
    assert.equal(retryDelay(1, 'soon', () => 0), 100);
  });
});

describe('rateLimitHooks', () => {
  test('retries until the call has waited maxWaitMs, then gives the 429 back', () => {
    const h = rateLimitHooks(undefined, 3000);
    assert.ok((h.retryDelay!(1, '1', 0) ?? -1) >= 1000);
    assert.equal(h.retryDelay!(3, '1', 2500), undefined);
  });
});
