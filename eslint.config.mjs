// ESLint for the whole tree: typescript-eslint with type information, and the import boundaries of the
// layout (docs/architecture.md), static, dynamic and require() alike (scripts/lint-boundaries.mjs):
// common/ imports no other part and neither `vscode` nor the LSP libraries; server/ imports only common/;
// the command line imports server/ only to start `tsq lsp`; the emulator imports neither the client, the
// server nor the service client of common/src/api; the webview never imports client/src; only client/
// imports `vscode`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { boundariesRule } from './scripts/lint-boundaries.mjs';

/** What a part may not import: packages by name, folders of this repository by the file an import resolves to. */
const parts = {
  vscode: { module: 'vscode', message: 'Only client/ may import vscode.' },
  lspServer: { module: 'vscode-languageserver', message: 'Only server/ may import the LSP server library.' },
  lspClient: { module: 'vscode-languageclient', message: 'Only client/ may import the LSP client library.' },
  client: { path: 'client/src', message: 'Nothing outside client/ imports the extension.' },
  webview: { path: 'client/webview', message: "Only the results panel's own files import its browser code." },
  extensionHost: { path: 'client/src', message: 'The webview runs in a browser: it talks to the extension by messages, never by import.' },
  server: { path: 'server/src', message: 'Only the language server imports server/.' },
  // The command line imports server/ only to start `tsq lsp`: the language service and the service catalog are in common/.
  serverButLsp: { path: 'server/src', except: ['server/src/nodeServer'], message: 'The command line imports server/ only to start tsq lsp (server/src/nodeServer.ts).' },
  emulator: { path: 'emulator/src', message: 'The emulator is a separate service: talk to it over HTTP.' },
  serviceClient: { path: 'common/src/api', message: "The emulator is an independent implementation of the service: it may not share the client's view of it (common/src/api)." },
  cli: { path: 'cli/src', message: 'Nothing imports the command line.' },
  loadPipeline: { path: 'common/src/load', message: 'The load pipeline drives the service client, never the reverse: common/src/api/ imports nothing of common/src/load/.' },
};

/** The most lines a source, script or test file holds (eslint `max-lines`, every folder). */
const FILE_LINES = 600;

/** The files over FILE_LINES today and the ceiling each keeps until it is split: none may grow past it. */
const FILE_CEILINGS = {
  'common/src/language/parser.ts': 2400,
  'emulator/src/searchdata/compile.ts': 1500,
  'common/src/language/lexer.ts': 1000,
  'common/src/languageService/completion.ts': 1000,
  'test/cli/mcp.test.ts': 900,
  'test/e2e/harness.ts': 800,
  'common/src/language/keywords.ts': 700,
};

/**
 * The `max-lines` rule at `max` lines a file (blank lines and comments count).
 * @param {number} max
 * @returns {import('eslint').Linter.RulesRecord}
 */
function maxLines(max) {
  return { 'max-lines': ['error', { max, skipBlankLines: false, skipComments: false }] };
}

/**
 * The boundary rule for a part: the listed imports are refused, static, dynamic or `require()`.
 * @param {import('./scripts/lint-boundaries.mjs').Refusal[]} refuse
 * @returns {import('eslint').Linter.RulesRecord}
 */
function boundary(...refuse) {
  return { 'tsq/boundaries': ['error', { refuse }] };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.tsq-emulator/**', '.test-results/**', '.vscode-test/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // every source file, TypeScript or JavaScript (checked by tsc through `checkJs`: tsconfig.base.json)
    files: ['**/*.ts', '**/*.mjs', '**/*.js'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  { files: ['**/*.ts'], plugins: { tsq: { rules: { boundaries: boundariesRule(import.meta.dirname) } } } },
  { files: ['common/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.client, parts.webview, parts.server, parts.emulator, parts.cli) },
  { files: ['common/src/api/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.client, parts.webview, parts.server, parts.emulator, parts.cli, parts.loadPipeline) },
  { files: ['server/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspClient, parts.client, parts.webview, parts.emulator, parts.cli) },
  { files: ['emulator/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.client, parts.webview, parts.server, parts.serviceClient, parts.cli) },
  { files: ['cli/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspClient, parts.client, parts.webview, parts.serverButLsp, parts.emulator) },
  { files: ['client/webview/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.extensionHost, parts.server, parts.emulator, parts.cli) },
  { files: ['client/src/**/*.ts'], rules: boundary(parts.lspServer, parts.server, parts.emulator, parts.cli) },
  // Size: a function of the shipped code reads in one screenful or two; the lexer's scanner is one state
  // machine on purpose (its speed is measured by npm run bench -- parse). A client file holds one concern.
  {
    files: ['common/src/**/*.ts', 'server/src/**/*.ts', 'client/**/*.ts', 'cli/src/**/*.ts', 'emulator/src/**/*.ts'],
    ignores: ['common/src/language/lexer.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: false, IIFEs: true }] },
  },
  // Text for a person reaches stdout and stderr of `tsq` only through cli/src/output.ts (writeLine, printLine,
  // info, warn, textTable), which pass it through the gate of common/src/terminalText.ts; `write` there is
  // for output exact by its own format (JSON, CSV, SARIF). SECURITY.md, "Text for a terminal".
  {
    files: ['cli/src/**/*.ts'],
    ignores: ['cli/src/output.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='write'][callee.object.object.name='process'][callee.object.property.name=/^std(out|err)$/]", message: 'Print through cli/src/output.ts (writeLine, printLine, info, warn; write for JSON, CSV or SARIF): text for a terminal goes through common/src/terminalText.ts.' },
        { selector: "CallExpression[callee.object.name='console']", message: 'Print through cli/src/output.ts: text for a terminal goes through common/src/terminalText.ts.' },
      ],
    },
  },
  // Size of a file, every folder: at most FILE_LINES lines; a client file holds one concern (450). The files
  // over the limit today each keep a ceiling near their size (FILE_CEILINGS) until they are split.
  { files: ['**/*.ts', '**/*.mjs', '**/*.js'], ignores: Object.keys(FILE_CEILINGS), rules: maxLines(FILE_LINES) },
  ...Object.entries(FILE_CEILINGS).map(([file, max]) => ({ files: [file], rules: maxLines(max) })),
  { files: ['client/**/*.ts'], rules: maxLines(450) },
  // The type check knows each environment's globals (tsconfig.json, client/webview/, test/), so ESLint's
  // own list is not needed; type imports are a TypeScript form only.
  { files: ['**/*.mjs', '**/*.js'], rules: { 'no-undef': 'off', '@typescript-eslint/consistent-type-imports': 'off' } },
  // The in-host test suites are CommonJS modules that VS Code's extension host loads with require().
  { files: ['test/e2e/suites/*.js', 'test/e2e/runner-extension/*.js'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
