/**
 * `npm test` type-checks and lints every source file: each `.ts`, `.js` and `.mjs` file of the repository
 * belongs to one of the three type-check projects (Node.js: tsconfig.json; the webview's DOM:
 * client/webview/tsconfig.json; the tests: test/tsconfig.json), which `npm run typecheck` checks, and
 * none is ignored by ESLint. A new folder or file type that escapes both fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { ESLint } from 'eslint';

const root = resolve(__dirname, '..', '..');
const projects = ['tsconfig.json', 'client/webview/tsconfig.json', 'test/tsconfig.json'];
/** Folders that hold no source of the repository (dependencies, build output, tools, state). */
const outside = new Set(['node_modules', 'dist', '.git', '.tools', '.tsq-emulator', '.test-results', '.vscode-test', '.bench', '.scratch', 'out']);

/** Every `.ts`, `.js` and `.mjs` file below `dir`, relative to the root. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return outside.has(e.name) ? [] : sources(join(dir, e.name));
    return /\.(ts|js|mjs|cjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [relative(root, join(dir, e.name))] : [];
  });
}

/** The root files of a project as tsc reads them (its include, exclude and allowJs). */
function projectFiles(config: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) });
  assert.ok(parsed, config);
  assert.deepEqual(parsed.errors, [], `${config} has errors`);
  return parsed.fileNames.map((f) => relative(root, f));
}

const files = sources(root);

test('every source file is in a type-check project, and in one only', () => {
  assert.ok(files.includes('scripts/start.mjs') && files.includes('test/e2e/suites/lib.js') && files.includes('client/webview/main.ts'), 'the walk finds the files');
  const owners = new Map<string, string[]>();
  for (const p of projects) for (const f of projectFiles(p)) owners.set(f, [...(owners.get(f) ?? []), p]);
  const missing = files.filter((f) => !owners.has(f));
  assert.deepEqual(missing, [], 'files no type check reads');
  const twice = [...owners].filter(([, ps]) => ps.length > 1).map(([f, ps]) => `${f}: ${ps.join(', ')}`);
  assert.deepEqual(twice, [], 'files in two projects (checked under two environments)');
});

test('the type check runs each project, with JavaScript checked', () => {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.typecheck;
  for (const p of projects) assert.match(script, new RegExp(`tsc -p ${p.replace(/\./g, '\\.')}(?: |$)`), `npm run typecheck checks ${p}`);
  for (const p of projects) {
    const parsed = ts.getParsedCommandLineOfConfigFile(join(root, p), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    assert.equal(parsed?.options.checkJs, true, `${p} checks JavaScript`);
    assert.equal(parsed?.options.strict, true, `${p} is strict`);
  }
});

test('only the webview and the tests see the DOM; only Node.js code and the tests see Node.js', () => {
  const options = (p: string) => ts.getParsedCommandLineOfConfigFile(join(root, p), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!.options;
  assert.ok(!(options('tsconfig.json').lib ?? []).some((l) => /dom/i.test(l)), 'Node.js code has no DOM');
  assert.ok((options('client/webview/tsconfig.json').lib ?? []).some((l) => /dom/i.test(l)), 'the webview has the DOM');
  assert.deepEqual(options('client/webview/tsconfig.json').types, [], 'the webview has no Node.js types');
});

test('ESLint ignores no source file', async () => {
  const eslint = new ESLint({ cwd: root });
  const ignored: string[] = [];
  for (const f of files) if (await eslint.isPathIgnored(join(root, f))) ignored.push(f);
  assert.deepEqual(ignored, []);
});

test('the lint refuses a file over 600 lines in every folder, and a file over its ceiling', async () => {
  const eslint = new ESLint({ cwd: root });
  const text = (n: number) => `${Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join('\n')}\n`;
  const ruleIds = async (n: number, file: string) => (await eslint.lintText(text(n), { filePath: join(root, file) }))[0].messages.map((m) => m.ruleId);
  for (const file of ['common/src/model.ts', 'server/src/nodeServer.ts', 'cli/src/main.ts', 'emulator/src/app.ts', 'client/webview/main.ts', 'scripts/count-casts.mjs', 'test/unit/gates.test.ts']) {
    assert.ok((await ruleIds(601, file)).includes('max-lines'), `${file}: 601 lines pass the lint`);
  }
  assert.ok(!(await ruleIds(2400, 'common/src/language/parser.ts')).includes('max-lines'), 'the parser keeps its ceiling');
  assert.ok((await ruleIds(2401, 'common/src/language/parser.ts')).includes('max-lines'), 'the parser may not grow past its ceiling');
});

test('the lint refuses a function over 100 lines and a client file over 450 lines', async () => {
  const eslint = new ESLint({ cwd: root });
  const body = Array.from({ length: 101 }, (_, i) => `  void ${i};`).join('\n');
  const [fn] = await eslint.lintText(`export function long(): void {\n${body}\n}\n`, { filePath: join(root, 'common/src/model.ts') });
  assert.ok(fn.messages.some((m) => m.ruleId === 'max-lines-per-function'), JSON.stringify(fn.messages.map((m) => m.ruleId)));
  const lines = Array.from({ length: 451 }, (_, i) => `export const c${i} = ${i};`).join('\n');
  const [file] = await eslint.lintText(`${lines}\n`, { filePath: join(root, 'client/src/extension.ts') });
  assert.ok(file.messages.some((m) => m.ruleId === 'max-lines'), JSON.stringify(file.messages.map((m) => m.ruleId)));
  const [short] = await eslint.lintText(`export function short(): void {\n  void 0;\n}\n`, { filePath: join(root, 'common/src/model.ts') });
  assert.deepEqual(short.messages.map((m) => m.ruleId), []);
});
