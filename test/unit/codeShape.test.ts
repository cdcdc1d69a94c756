/**
 * The shape of the code, kept by tests rather than hoped for (docs/architecture.md):
 * - no function is longer than 150 lines, outside the lexer's scanner (one loop over characters that
 *   reads best whole); a longer one is split along its seams;
 * - no runtime import cycle among the project's modules (`import type` and type-only specifiers are
 *   erased by the compiler, so they do not count): shared types live in their own module, as
 *   vscode-css-languageservice keeps `cssLanguageTypes`.
 * Both walk the sources with the TypeScript compiler API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '../..');
const PARTS = ['common/src', 'server/src', 'client/src', 'client/webview', 'emulator/src', 'cli/src'];
const MAX_LINES = 150;

/**
 * Functions allowed over the limit, as `file:name`; a name covers the functions nested in it. The
 * lexer's scanner is the one exception: one loop over the characters reads best in one place.
 */
const LONG_FUNCTIONS = new Set([
  'common/src/language/lexer.ts:scanTokens',
]);

/** Every `.ts` file below the project's parts (no tests, no declarations). */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'node_modules') walk(p);
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const part of PARTS) walk(join(root, part));
  return out;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** A readable name of a function-like node: its own name, or the variable, property or call it is given to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 60)})`;
  return '(anonymous)';
}

/**
 * Functions of a file longer than `MAX_LINES`: `names` is the function's name preceded by the names of
 * the functions it is nested in, outermost first.
 */
function longFunctions(file: string): { names: string[]; lines: number; line: number }[] {
  const source = parse(file);
  const found: { names: string[]; lines: number; line: number }[] = [];
  const visit = (node: ts.Node, outer: string[]) => {
    let names = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      names = [...outer, functionName(node as ts.FunctionLikeDeclaration)];
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_LINES) found.push({ names, lines, line: start + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, names));
  };
  visit(source, []);
  return found;
}

test(`no function is over ${MAX_LINES} lines, outside the lexer's scanner`, () => {
  const over: string[] = [];
  for (const file of sourceFiles()) {
    const rel = relative(root, file);
    for (const f of longFunctions(file)) {
      if (!f.names.some((name) => LONG_FUNCTIONS.has(`${rel}:${name}`))) over.push(`${rel}:${f.line} ${f.names.join(' > ')} is ${f.lines} lines`);
    }
  }
  assert.deepEqual(over, [], `split these along their seams:\n${over.join('\n')}`);
});

test('the length check sees a long function', () => {
  // The walk itself, on a file known to hold one: the scanner.
  const names = longFunctions(join(root, 'common/src/language/lexer.ts')).map((f) => f.names.at(-1));
  assert.ok(names.includes('scanTokens'), `expected the scanner to be over ${MAX_LINES} lines; found ${names.join(', ')}`);
});

/**
 * The module specifiers a file imports at run time: those of `import` and `export … from` that the
 * compiler keeps (not `import type`, not a clause whose every specifier is `type`).
 */
function runtimeSpecifiers(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const allTypes = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) => elements.length > 0 && elements.every((e) => e.isTypeOnly);
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const bindings = clause?.namedBindings;
      if (clause && !clause.name && bindings && ts.isNamedImports(bindings) && allTypes(bindings.elements)) continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      const clause = statement.exportClause;
      if (statement.isTypeOnly || (clause && ts.isNamedExports(clause) && allTypes(clause.elements))) continue;
      specifier = statement.moduleSpecifier;
    }
    if (specifier && ts.isStringLiteral(specifier)) out.push(specifier.text);
  }
  return out;
}

/** The project files a file imports at run time (relative specifiers resolved; packages left out). */
function runtimeImports(file: string): string[] {
  const out: string[] = [];
  for (const specifier of runtimeSpecifiers(parse(file))) {
    if (!specifier.startsWith('.')) continue;
    const base = resolve(dirname(file), specifier);
    const target = [`${base}.ts`, join(base, 'index.ts'), base].find((p) => existsSync(p) && statSync(p).isFile());
    if (target) out.push(target);
  }
  return out;
}

/** The cycles of a graph, each as the path of files from a module back to itself (one per strongly connected component). */
function findCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components; a component of more than one module, or a module importing
  // itself, is a cycle.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const strongConnect = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.reverse());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) strongConnect(v);
  return cycles;
}

test('no runtime import cycle among the modules', () => {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) graph.set(file, runtimeImports(file));
  const cycles = findCycles(graph).map((c) => c.map((f) => relative(root, f)).join(' ↔ '));
  assert.deepEqual(cycles, [], `runtime import cycles (move the shared part into its own module):\n${cycles.join('\n')}`);
});

test('the cycle check sees a cycle, and ignores type-only imports', () => {
  const a = ts.createSourceFile('a.ts', "import { b } from './b';\nimport type { C } from './c';\nimport { type D } from './d';\nexport type { E } from './e';\nexport { f } from './f';", ts.ScriptTarget.Latest, true);
  assert.deepEqual(runtimeSpecifiers(a), ['./b', './f']);
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  assert.deepEqual(findCycles(graph), [['a', 'b', 'c']]);
  assert.deepEqual(findCycles(new Map([['a', ['b']], ['b', []]])), []);
});
