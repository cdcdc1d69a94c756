// @ts-check
// In-host suite of Preview Data against the emulator started with --demo: tsadmin connects, then
// TSQ: Preview Data given a table's name only (what a finished load's Show Data hands it) shows the
// first rows (at most 1,000) of every column of the demo cars table. The tree's context menu is driven by
// test/e2e/preview.test.ts through the UI.
// Environment (set by test/e2e/harness.ts on the code-server process):
//   TSQ_E2E_EMULATOR_URL   the emulator's base URL (required)
'use strict';
const vscode = require('vscode');
const { defineSuite, check, connectAsTsadmin } = require('./lib');

module.exports = defineSuite([
  connectAsTsadmin,
  {
    name: 'Preview Data of a table named by its name (as a finished load hands it) gives its first 1,000 rows of every column',
    async fn() {
      /** @type {{ rows: number; totalRowCount: number; columnNames: string[]; error?: string } | undefined} */
      const s = await vscode.commands.executeCommand('tsq.previewData', { name: 'cars' });
      check(!!s && !s.error, 'the preview ran without an error', s);
      check(s.rows === Math.min(1000, s.totalRowCount) && s.rows > 0, 'the first 1,000 rows (or all of them)', s);
      check(['Name', 'Horsepower', 'Origin'].every((c) => s.columnNames.some((n) => n.includes(c))), 'the columns of cars', s.columnNames);
    },
  },
]);
