/**
 * The typed readers of commander's options (cli/src/optionValues.ts) and the commands of cli/src, each of
 * which builds one typed options object from its flags (`readOptions`). The scan fails on a parameter
 * typed as a record of unknowns (`Record<string, unknown>`, `OptionValues`, `any`), an options
 * interface extending `Record`, and a cast of an option read from a record (`opts.x as T`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { choiceOf, count, flag, oneOf, readOptions, text, texts, given } from '../../cli/src/optionValues';

test('each reader gives the value of its kind and absent for another kind', () => {
  assert.equal(text('a'), 'a');
  assert.equal(text(3), undefined);
  assert.deepEqual(texts(['a', 'b']), ['a', 'b']);
  assert.equal(texts(['a', 1]), undefined);
  assert.equal(flag(true), true);
  assert.equal(flag('true'), false);
  assert.equal(count(5), 5);
  assert.equal(count('5'), undefined);
  assert.equal(choiceOf('json', ['table', 'json'] as const), 'json');
  assert.equal(choiceOf('xml', ['table', 'json'] as const), undefined);
});

test('the readers of options commander always sets throw when the value is missing', () => {
  assert.equal(given(count(10), '--page-size'), 10);
  assert.throws(() => given(count(undefined), '--page-size'), /--page-size/);
  assert.equal(oneOf('csv', ['csv', 'json'] as const, '--format'), 'csv');
  assert.throws(() => oneOf('xml', ['csv', 'json'] as const, '--format'), /--format must be one of csv, json/);
});

const cli = join(__dirname, '../../cli/src');

/** A parameter type that is a record of unknowns (commander's options untyped): `Record<string, unknown|any>`, `OptionValues`, `any`. */
function isUntypedOptions(t: ts.TypeNode): boolean {
  if (t.kind === ts.SyntaxKind.AnyKeyword) return true;
  if (!ts.isTypeReferenceNode(t)) return false;
  const name = t.typeName.getText();
  return name === 'OptionValues' || (name === 'Record' && t.typeArguments?.[0]?.kind === ts.SyntaxKind.StringKeyword && [ts.SyntaxKind.UnknownKeyword, ts.SyntaxKind.AnyKeyword].includes(t.typeArguments[1]!.kind));
}

/** Whether an expression reads an option out of a parsed record: `opts.x`, `raw['x']`, `options.x`, `….opts().x`. */
function readsOption(e: ts.Expression): boolean {
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  if (!ts.isPropertyAccessExpression(e) && !ts.isElementAccessExpression(e)) return false;
  const base = e.expression;
  if (ts.isIdentifier(base)) return /^(opts|options|raw|flags)$/.test(base.text);
  return ts.isCallExpression(base) && ts.isPropertyAccessExpression(base.expression) && base.expression.name.text === 'opts';
}

/** The places of a source that take options untyped or cast one (`line: text`): see the file comment. */
export function untypedOptions(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (n: ts.Node) => `${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().slice(0, 60)}`;
  const visit = (n: ts.Node): void => {
    if (ts.isParameter(n) && n.type && isUntypedOptions(n.type)) out.push(at(n));
    if (ts.isInterfaceDeclaration(n) && n.heritageClauses?.some((h) => h.types.some((t) => t.expression.getText() === 'Record'))) out.push(at(n.name));
    if ((ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) && readsOption(n.expression)) out.push(at(n));
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('readOptions builds one typed object from what commander hands an action', () => {
  const opts = readOptions({ out: 'x', json: true, n: 3 }, (o) => ({ out: text(o('out')), json: flag(o('json')), n: count(o('n')), missing: text(o('missing')) }));
  assert.deepEqual(opts, { out: 'x', json: true, n: 3, missing: undefined });
  assert.deepEqual(readOptions(undefined, (o) => ({ out: text(o('out')) })), { out: undefined });
});

test('the scan finds a record of options, an options interface over Record, and a cast option', () => {
  const bad = [
    "program.action(async (file: string, raw: Record<string, unknown>) => { run(raw.out as string); });",
    'export interface McpOptions extends Record<string, unknown> { root?: string[] }',
    "function connect(opts: OptionValues) { return opts['url'] as string; }",
    'const org = program.opts().org as string | undefined;',
  ].join('\n');
  assert.deepEqual(untypedOptions('bad.ts', bad).map((p) => p.split(':')[0]), ['1', '1', '2', '3', '3', '4']);
  assert.deepEqual(untypedOptions('good.ts', "program.action(async (file: string, raw: unknown) => { const opts = readOptions(raw, (o) => ({ out: text(o('out')) })); run(opts.out); });"), []);
});

test('no command of cli/src takes its options untyped or casts one', () => {
  const found = files(cli).flatMap((f) => untypedOptions(f, readFileSync(f, 'utf8')).map((p) => `${relative(cli, f)}:${p}`));
  assert.deepEqual(found, [], 'build one typed options object with readOptions (cli/src/optionValues.ts)');
});
