/**
 * The import boundaries of the layout (docs/architecture.md) are enforced by ESLint (eslint.config.mjs,
 * the rule `tsq/boundaries` of scripts/lint-boundaries.mjs). Each case lints a forbidden import as the
 * text of a real file of a part and expects the rule to refuse it, written as a static import, a dynamic
 * `import()` and a `require()`; and lints allowed imports of the same file and expects no refusal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const root = resolve(__dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

/** The messages of the boundary rule for `source` linted as if it were the file `filePath`. */
async function refusals(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  const parseErrors = result.messages.filter((m) => m.ruleId === null);
  assert.deepEqual(parseErrors, [], `${filePath} did not parse`);
  return result.messages.filter((m) => m.ruleId === 'tsq/boundaries').map((m) => m.message);
}

/** The three ways a module can pull in `specifier`: static import, dynamic import, require. */
function everyForm(specifier: string): string[] {
  return [`import * as m from '${specifier}';\nvoid m;`, `void import('${specifier}');`, `require('${specifier}');`];
}

const cases: { part: string; file: string; refused: string[]; allowed: string[] }[] = [
  {
    part: 'common/',
    file: 'common/src/model.ts',
    refused: [
      ...everyForm('vscode'),
      "type Uri = import('vscode').Uri;\nexport type { Uri };",
      "import type { Uri } from 'vscode';\nexport type { Uri };",
      "export { window } from 'vscode';",
      ...everyForm('vscode-languageserver/node'),
      ...everyForm('vscode-languageclient/node'),
      ...everyForm('../../client/src/log'),
      ...everyForm('../../client/webview/main'),
      ...everyForm('../../server/src/server'),
      ...everyForm('./../../server/src/nodeServer.ts'),
      ...everyForm('../../emulator/src/app'),
      ...everyForm('../../cli/src/main'),
    ],
    allowed: ["import { RequestType } from 'vscode-jsonrpc';", "import { parseDocument } from './language/parser';", "void import('./api/index');", "import { TextDocument } from 'vscode-languageserver-textdocument';"],
  },
  {
    part: 'common/src/api/',
    file: 'common/src/api/index.ts',
    refused: [...everyForm('vscode'), ...everyForm('../../../client/src/log'), ...everyForm('../load/pipeline'), ...everyForm('../load'), ...everyForm('../../../common/src/load/inputTable'), "import type { LoadResult } from '../load/result';\nexport type { LoadResult };"],
    allowed: ["import { ServiceError } from './errors';", "import type { ColumnDataType } from '../model';", "import { terminalSafe } from '../terminalText';"],
  },
  {
    part: 'server/',
    file: 'server/src/server.ts',
    refused: [...everyForm('vscode'), ...everyForm('vscode-languageclient/node'), ...everyForm('../../client/src/log'), ...everyForm('../../emulator/src/app'), ...everyForm('../../cli/src/main')],
    allowed: ["import { parseDocument } from '../../common/src/language/parser';", "import { createConnection } from 'vscode-languageserver/node';", "void import('./nodeServer');"],
  },
  {
    part: 'emulator/',
    file: 'emulator/src/app.ts',
    refused: [
      ...everyForm('vscode'),
      ...everyForm('../../client/src/log'),
      ...everyForm('../../server/src/server'),
      ...everyForm('../../cli/src/main'),
      ...everyForm('../../common/src/api'),
      ...everyForm('../../common/src/api/index'),
      ...everyForm('../../common/src/api/publicApi'),
    ],
    allowed: ["import { parseDocument } from '../../common/src/language/parser';", "import { RecordBoundaryScanner } from '../../common/src/load/recordBoundary';", "void import('@fastify/cookie');", "import { ColumnDataType } from '../../common/src/model';"],
  },
  {
    part: 'cli/',
    file: 'cli/src/main.ts',
    refused: [...everyForm('vscode'), ...everyForm('vscode-languageclient/node'), ...everyForm('../../client/src/log'), ...everyForm('../../server/src/server'), ...everyForm('../../server/src/features/hover'), ...everyForm('../../server/src/takeoverCatalog'), ...everyForm('../../emulator/src/app')],
    allowed: ["import { runNodeServer } from '../../server/src/nodeServer';", "void import('../../server/src/nodeServer');", "import { AnalyticsServiceClient } from '../../common/src/api';", "import { getLanguageService } from '../../common/src/languageService/languageService';", "import { ServiceCatalogProvider } from '../../common/src/catalog';"],
  },
  {
    part: 'client/webview/',
    file: 'client/webview/main.ts',
    refused: [...everyForm('vscode'), ...everyForm('../src/log'), ...everyForm('../src/results/index'), ...everyForm('../../server/src/server'), ...everyForm('../../emulator/src/app'), ...everyForm('../../cli/src/main')],
    allowed: ["import { formatCell } from '../../common/src/results/format';", "import { Chart } from 'chart.js';"],
  },
  {
    part: 'client/src/',
    file: 'client/src/log.ts',
    refused: [...everyForm('../../server/src/server'), ...everyForm('../../emulator/src/app'), ...everyForm('vscode-languageserver/node'), ...everyForm('../../cli/src/main')],
    allowed: ["import * as vscode from 'vscode';", "void import('vscode');", "import { AnalyticsServiceClient } from '../../common/src/api';", "import { LanguageClient } from 'vscode-languageclient/node';"],
  },
];

for (const c of cases) {
  test(`import boundaries of ${c.part}`, async () => {
    for (const line of c.refused) {
      const messages = await refusals(c.file, `${line}\nexport {};\n`);
      assert.equal(messages.length, 1, `${c.file}: expected the lint to refuse ${line}`);
    }
    for (const line of c.allowed) {
      assert.deepEqual(await refusals(c.file, `${line}\nexport {};\n`), [], `${c.file}: expected the lint to allow ${line}`);
    }
  });
}

test('the refusal names the import and says why', async () => {
  const [message] = await refusals('common/src/model.ts', "void import('vscode');\nexport {};\n");
  assert.match(message, /'vscode' is refused here: Only client\/ may import vscode\./);
});
