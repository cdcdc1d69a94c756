// @ts-check
// The end-to-end test runner: a tiny extension installed beside the extension under test by
// test/e2e/harness.ts. code-server does not accept --extensionTestsPath, so when TSQ_E2E_SUITE names a
// suite module (a .js file exporting `run(options)`, see test/e2e/suites/lib.js), this extension runs
// it in the extension host on `onStartupFinished`, with the real `vscode` API, and writes the results
// atomically as JSON to TSQ_E2E_RESULT (default `<suite>.result.json`):
//   { suite, startedAt, durationMs, passed, failed, tests: [{ name, ok, durationMs, error? }], error? }
// A top-level `error`: the suite could not be loaded or crashed outside a test. A suite runs once per
// result file, so reloading the workbench in a UI test does not run it again.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** @param {import('vscode').ExtensionContext} _context */
async function activate(_context) {
  const suite = process.env.TSQ_E2E_SUITE;
  if (!suite) return;
  const resultFile = process.env.TSQ_E2E_RESULT || `${suite}.result.json`;
  if (fs.existsSync(resultFile)) return;
  const startedAt = new Date();
  /** @type {{ suite: string, startedAt: string, durationMs: number, passed: number, failed: number, tests: any[], error?: string }} */
  const result = { suite, startedAt: startedAt.toISOString(), durationMs: 0, passed: 0, failed: 0, tests: [] };
  try {
    const mod = require(suite);
    if (typeof mod.run !== 'function') throw new Error(`${suite} does not export run()`);
    await mod.run({
      throwOnFailure: false,
      onResult: (/** @type {{ name: string, ok: boolean, durationMs: number, error?: string }} */ r) => {
        result.tests.push(r);
        if (r.ok) result.passed++;
        else result.failed++;
        writeResult(resultFile + '.partial', result);
      },
    });
  } catch (err) {
    result.error = err instanceof Error ? err.stack || err.message : String(err);
  }
  result.durationMs = Date.now() - startedAt.getTime();
  writeResult(resultFile, result);
}

/**
 * Writes JSON atomically (temp file, then rename) so that the driver never reads half a file.
 * @param {string} file
 * @param {unknown} value
 */
function writeResult(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2));
  fs.renameSync(tmp, file);
}

function deactivate() {}

module.exports = { activate, deactivate };
