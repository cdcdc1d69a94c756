// A short run of the fault-injection harness (harness.ts): about 50 faults of every kind against the real
// emulator process and the real client pipeline; not one row may be lost, duplicated or fabricated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAULT_KINDS, formatReport, reportIsClean, runFaults } from './harness';

test('50 faults (kill -9 at random instants and at each step, TCP cuts, 401s, cancels, concurrent loads): no row lost, duplicated or fabricated', async () => {
  const report = await runFaults({ faults: 50, seed: 11 });
  const text = formatReport(report);
  assert.ok(reportIsClean(report), text);
  for (const k of FAULT_KINDS) {
    const n = Object.entries(report.byKind).filter(([kind]) => kind === k || kind.startsWith(`${k}:`)).reduce((a, [, v]) => a + v, 0);
    assert.ok(n > 0, `no fault of kind ${k} was injected:\n${text}`);
  }
  assert.ok(report.verdicts.ok > 0 && report.verdicts.unchanged > 0, text);
});
