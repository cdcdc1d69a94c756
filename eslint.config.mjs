// ESLint for the whole tree: typescript-eslint with type information, and the import boundaries of the
// layout (docs/architecture.md): common/ imports no other part and neither `vscode` nor the LSP server;
// server/ imports only common/; the emulator and the command line never import the client or the server
// of the extension; only client/ imports `vscode`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Import patterns (gitignore-style, matched against the import string) that a part may not use. */
const parts = {
  vscode: { name: 'vscode', message: 'Only client/ may import vscode.' },
  lspServer: { group: ['vscode-languageserver', 'vscode-languageserver/*'], message: 'Only server/ may import the LSP server library.' },
  lspClient: { group: ['vscode-languageclient', 'vscode-languageclient/*'], message: 'Only client/ may import the LSP client library.' },
  client: { group: ['**/client/src/**', '**/client/webview/**', '**/client/src', '../client/*'], message: 'Nothing outside client/ imports the extension.' },
  server: { group: ['**/server/src/**', '**/server/src'], message: 'Only the language server imports server/.' },
  emulator: { group: ['**/emulator/src/**', '**/emulator/src'], message: 'The emulator is a separate service: talk to it over HTTP.' },
  cli: { group: ['**/cli/src/**', '**/cli/src'], message: 'Nothing imports the command line.' },
  serverButStart: {
    regex: '(^|/)server/src(/(?!nodeServer(\\.ts)?$).*)?$',
    message: 'The command line imports server/ only to start `tsq lsp` (server/src/nodeServer); the language service and the service catalog are in common/.',
  },
};

/** A no-restricted-imports rule for a part: the listed paths and patterns are refused. */
function boundary(...refused) {
  const paths = refused.filter((r) => r.name).map((r) => ({ name: r.name, message: r.message }));
  const patterns = refused.filter((r) => r.group || r.regex).map((r) => (r.regex ? { regex: r.regex, message: r.message } : { group: r.group, message: r.message }));
  return { 'no-restricted-imports': ['error', { paths, patterns }] };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.tsq-emulator/**', '.test-results/**', '.vscode-test/**', '**/*.js', 'test/e2e/runner-extension/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
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
  { files: ['common/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.client, parts.server, parts.emulator, parts.cli) },
  { files: ['server/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspClient, parts.client, parts.emulator, parts.cli) },
  { files: ['emulator/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.client, parts.server, parts.cli) },
  { files: ['cli/src/**/*.ts'], rules: boundary(parts.vscode, parts.lspClient, parts.client, parts.emulator, parts.serverButStart) },
  { files: ['client/webview/**/*.ts'], rules: boundary(parts.vscode, parts.lspServer, parts.lspClient, parts.server, parts.emulator, parts.cli) },
  { files: ['client/src/**/*.ts'], rules: boundary(parts.lspServer, parts.server, parts.emulator, parts.cli) },
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', fetch: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly' } } },
);
