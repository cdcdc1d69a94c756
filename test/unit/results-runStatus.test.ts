// The words of a run in the status bar (common/src/results/runStatus.ts) and in the Messages tab of the
// TSQ Results view (`runLogText`, common/src/results/messages.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastRunText, shortQuery } from '../../common/src/results/runStatus';
import { runLogText, type RunLogEntry } from '../../common/src/results/messages';

test('the last run: rows summed over its queries and the longest time; a failure and a cancel say so', () => {
  assert.equal(lastRunText([{ rows: 10, elapsedMs: 412 }]), '10 rows · 0.4 s');
  assert.equal(lastRunText([{ rows: 1, elapsedMs: 50 }]), '1 row · 0.1 s');
  assert.equal(lastRunText([{ rows: 1000, elapsedMs: 1200 }, { rows: 234, elapsedMs: 2500 }]), '1,234 rows · 2.5 s');
  assert.equal(lastRunText([{ rows: 0, elapsedMs: 300, error: 'refused' }]), 'failed after 0.3 s');
  assert.equal(lastRunText([{ rows: 5, elapsedMs: 300 }, { rows: 0, elapsedMs: 900, error: 'refused' }]), '5 rows · 0.9 s · 1 failed');
  assert.equal(lastRunText([{ rows: 12, elapsedMs: 4000, cancelled: true }]), 'cancelled after 4.0 s · 12 rows');
  assert.equal(lastRunText([]), undefined);
});

test('the query running fits the status bar: one line, cut with an ellipsis', () => {
  assert.equal(shortQuery('[origin]\n  [delay] top 10'), '[origin] [delay] top 10');
  const cut = shortQuery("[Name] [Miles_per_Gallon] [Origin] = 'USA'");
  assert.equal(cut.length, 40);
  assert.ok(cut.endsWith('…') && cut.startsWith('[Name] [Miles_per_Gallon]'), cut);
});

test('a Messages line: the time, the document, rows of the total and seconds, or the failure with the service\'s message', () => {
  const at = new Date(2026, 0, 2, 3, 4, 5).getTime(); // local time, as the webview shows it
  const base: RunLogEntry = { at, source: 'flights.tsq', query: '[origin]\n[delay] top 10', outcome: 'ok', rows: 10, totalRowCount: 10, elapsedMs: 412 };
  assert.equal(runLogText(base), '03:04:05 flights.tsq — 10 rows in 0.4 s: [origin] [delay] top 10');
  assert.equal(runLogText({ ...base, rows: 1000, totalRowCount: 25000 }), '03:04:05 flights.tsq — 1,000 rows of 25,000 in 0.4 s: [origin] [delay] top 10');
  assert.equal(runLogText({ ...base, outcome: 'error', rows: 0, message: 'Column no such column not found' }), '03:04:05 flights.tsq — failed after 0.4 s: Column no such column not found: [origin] [delay] top 10');
  assert.equal(runLogText({ ...base, outcome: 'cancelled', rows: 3 }), '03:04:05 flights.tsq — cancelled after 0.4 s (3 rows of 10): [origin] [delay] top 10');
});
