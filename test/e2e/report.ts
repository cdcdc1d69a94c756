/**
 * Reports an in-host suite's results (written by the runner extension) as node:test subtests, one
 * per in-host test, so that each shows by name in the test runner's output.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { E2eSession } from './harness';

/**
 * Waits for the session's in-host suite and adds a subtest per in-host test.
 * @param expected how many tests the suite has (a suite that stopped early fails)
 */
export async function reportInHost(t: TestContext, session: E2eSession, expected: number): Promise<void> {
  const started = Date.now();
  const result = await session.step('in-host-suite', () => session.waitForSuite());
  t.diagnostic(`start-up (ms): ${JSON.stringify(session.timings)}; waited ${Date.now() - started} ms for the in-host suite`);
  await t.test('the in-host suite ran to its end', () => session.step('in-host-suite', async () => {
    assert.equal(result.error, undefined, `the suite crashed: ${result.error}`);
    assert.equal(result.tests.length, expected, `tests run: ${result.tests.map((x) => x.name).join(', ')}`);
  }));
  t.diagnostic(`in-host suite ${result.suite}: ${result.passed} passed, ${result.failed} failed in ${result.durationMs} ms`);
  for (const r of result.tests) {
    t.diagnostic(`in host: ${r.name}: ${r.durationMs} ms`);
    await t.test(`in host: ${r.name}`, () => session.step(`in-host ${r.name}`, async () => {
      if (!r.ok) throw new Error(r.error ?? 'failed');
    }));
  }
}
