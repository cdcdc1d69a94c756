// @ts-check
// Entry point for @vscode/test-electron (`npm run test:vscode`, extensionTestsPath): runs the
// in-host suites named by TSQ_E2E_SUITES (comma-separated file names under this folder; default
// every suite here, smoke.js first) in order, and rejects when any test failed — test-electron then exits non-zero.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** Every suite in this folder: smoke.js first (it needs no connection), the others by name. */
function allSuites() {
  const names = fs.readdirSync(__dirname).filter((n) => n.endsWith('.js') && n !== 'lib.js' && n !== 'index.js').sort();
  return [...names.filter((n) => n === 'smoke.js'), ...names.filter((n) => n !== 'smoke.js')];
}

async function run() {
  const names = process.env.TSQ_E2E_SUITES ? process.env.TSQ_E2E_SUITES.split(',').map((s) => s.trim()).filter(Boolean) : allSuites();
  /** @type {string[]} */
  const failures = [];
  for (const name of names) {
    /** @type {ReturnType<typeof import('./lib').defineSuite>} */
    const suite = require(path.join(__dirname, name));
    const results = await suite.run({ throwOnFailure: false });
    failures.push(...results.filter((r) => !r.ok).map((r) => `${name}: ${r.name}`));
  }
  if (failures.length) throw new Error(`in-host tests failed:\n  ${failures.join('\n  ')}`);
}

module.exports = { run };
