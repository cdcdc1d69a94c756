/**
 * The import boundaries of the layout (docs/architecture.md) are enforced by ESLint (eslint.config.mjs,
 * `no-restricted-imports`): each case lints a forbidden import as the text of a real file of a part and
 * expects the rule to refuse it, and lints an allowed import of the same file and expects no refusal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const root = resolve(__dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

/** The messages of `no-restricted-imports` for `source` linted as if it were the file `filePath`. */
async function refusals(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  const parseErrors = result.messages.filter((m) => m.ruleId === null);
  assert.deepEqual(parseErrors, [], `${filePath} did not parse`);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const cases: { file: string; refused: string[]; allowed: string[] }[] = [
  {
    file: 'common/src/model.ts',
    refused: ["import * as vscode from 'vscode';", "import { createConnection } from 'vscode-languageserver/node';", "import { LanguageClient } from 'vscode-languageclient/node';", "import { getLog } from '../../client/src/log';", "import { startServer } from '../../server/src/server';", "import { createApp } from '../../emulator/src/app';"],
    allowed: ["import { RequestType } from 'vscode-jsonrpc';", "import { parseDocument } from './language/parser';"],
  },
  {
    file: 'server/src/server.ts',
    refused: ["import * as vscode from 'vscode';", "import { getLog } from '../../client/src/log';", "import { createApp } from '../../emulator/src/app';"],
    allowed: ["import { parseDocument } from '../../common/src/language/parser';", "import { createConnection } from 'vscode-languageserver/node';"],
  },
  {
    file: 'emulator/src/app.ts',
    refused: ["import * as vscode from 'vscode';", "import { getLog } from '../../client/src/log';", "import { startServer } from '../../server/src/server';", "import { AnalyticsServiceClient } from '../../client/src/api';"],
    allowed: ["import { parseDocument } from '../../common/src/language/parser';"],
  },
  {
    file: 'cli/src/check.ts',
    refused: ["import { TakeoverCatalog } from '../../server/src/takeoverCatalog';", "import { startServer } from '../../server/src/server';", "import { getLog } from '../../client/src/log';"],
    allowed: ["import { runNodeServer } from '../../server/src/nodeServer';", "import { getLanguageService } from '../../common/src/languageService/languageService';", "import { ServiceCatalogProvider } from '../../common/src/catalog';"],
  },
  {
    file: 'client/src/log.ts',
    refused: ["import { startServer } from '../../server/src/server';", "import { createApp } from '../../emulator/src/app';", "import { createConnection } from 'vscode-languageserver/node';"],
    allowed: ["import * as vscode from 'vscode';", "import { AnalyticsServiceClient } from '../../common/src/api';"],
  },
];

for (const c of cases) {
  test(`import boundaries of ${c.file.split('/')[0]}/`, async () => {
    for (const line of c.refused) {
      const messages = await refusals(c.file, `${line}\nexport {};\n`);
      assert.equal(messages.length, 1, `${c.file}: expected the lint to refuse ${line}`);
    }
    for (const line of c.allowed) {
      assert.deepEqual(await refusals(c.file, `${line}\nexport {};\n`), [], `${c.file}: expected the lint to allow ${line}`);
    }
  });
}
