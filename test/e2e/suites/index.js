// @ts-check
// Entry point for @vscode/test-electron (`npm run test:vscode`, extensionTestsPath): runs the
// in-host suites named by TSQ_E2E_SUITES (comma-separated file names under this folder; default
// all of them) in order, and rejects when any test failed — test-electron then exits non-zero.
'use strict';
const path = require('node:path');

const ALL = ['smoke.js', 'connected.js'];

async function run() {
  const names = (process.env.TSQ_E2E_SUITES || ALL.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const failures = [];
  for (const name of names) {
    const suite = require(path.join(__dirname, name));
    const results = await suite.run({ throwOnFailure: false });
    failures.push(...results.filter((r) => !r.ok).map((r) => `${name}: ${r.name}`));
  }
  if (failures.length) throw new Error(`in-host tests failed:\n  ${failures.join('\n  ')}`);
}

module.exports = { run };
