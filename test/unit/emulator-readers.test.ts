/**
 * The emulator reads a request's values with one set of readers, emulator/src/requestValues.ts (`str`,
 * `int`, `bool`, `stringList` over the v2 JSON body or a v1 request's `formValues`). The scan fails on a
 * second set: a function named as a reader (the names below, those of the two sets there were) declared
 * elsewhere in emulator/src, or a route reading `req.query` / `req.body` itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '../..');
const READERS = 'emulator/src/requestValues.ts';
/** Names of readers: those of requestValues.ts and of the v1 set it replaced (public/params.ts). */
const READER_NAMES = new Set(['body', 'formValues', 'has', 'str', 'int', 'bool', 'stringList', 'param', 'rawParam', 'intParam', 'boolParam', 'listParam', 'hasParam']);

/**
 * Files allowed to read a request's values themselves, with why: the data-load API (emulator/src/load/)
 * is another service of its own (docs/service-interface.md §5), whose bodies, errors and load
 * definition (`str`/`bool` naming a JSON path in its messages) are its own, not the public API's.
 */
const OWN_BOUNDARY = new Set(['emulator/src/load/routes.ts', 'emulator/src/load/sessions.ts', 'emulator/src/load/definition.ts']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The places of a source that read request values outside the readers (`line: what`). */
export function secondReaders(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (n: ts.Node, what: string) => out.push(`${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${what}`);
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name && READER_NAMES.has(n.name.text)) at(n, `function ${n.name.text}`);
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && READER_NAMES.has(n.name.text) && n.initializer && ts.isArrowFunction(n.initializer)) at(n, `function ${n.name.text}`);
    if (ts.isPropertyAccessExpression(n) && (n.name.text === 'query' || n.name.text === 'body') && ts.isIdentifier(n.expression) && /^(req|request)$/.test(n.expression.text)) at(n, n.getText());
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('the scan finds the second set there was: v1 param readers and a route reading its query', () => {
  const v1 = "export function param(req: FastifyRequest, name: string) { return recordOr(req.query)[name] ?? recordOr(req.body)[name]; }\nexport function intParam(req, name, d) { return Number(param(req, name) ?? d); }";
  assert.deepEqual(secondReaders('a.ts', v1), ['1: function param', '1: req.query', '1: req.body', '2: function intParam']);
  const v2 = "export const str = (b: Record<string, unknown>, name: string) => (typeof b[name] === 'string' ? b[name] : undefined);";
  assert.deepEqual(secondReaders('b.ts', v2), ['1: function str']);
  assert.deepEqual(secondReaders('c.ts', "api.get('/x', async (req) => ({ n: int(formValues(req), 'n', 0), s: str(body(req), 'name') }));"), []);
});

test('the emulator has one set of readers of request values', () => {
  const found: string[] = [];
  for (const file of files(join(root, 'emulator/src'))) {
    const rel = relative(root, file).split('\\').join('/');
    if (rel === READERS || OWN_BOUNDARY.has(rel)) continue;
    for (const p of secondReaders(rel, readFileSync(file, 'utf8'))) found.push(`${rel}:${p}`);
  }
  assert.deepEqual(found, [], `read request values with ${READERS}`);
});
