/**
 * The language service keeps its state per instance: completion's templates and keyword docs, validation's
 * indexed columns and kept checks live in `ServiceContext.memo`, made with each service (two services,
 * say two connections naming different data sources alike, never share one), and a parse's memo of
 * quoted phrases lives with the parse. The scan below fails on module state in common/src/language and
 * common/src/languageService: a module-level `new Map`/`WeakMap`/`Set`/`WeakSet` changed inside a function
 * (a cache), a module-level `let`, or a module-level collection not in TABLES (tables built when the
 * module loads and never changed after).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { getLanguageService } from '../../common/src/languageService';
import { TextDocument } from 'vscode-languageserver-textdocument';

const root = resolve(__dirname, '../..');
const PARTS = ['common/src/language', 'common/src/languageService'];

/** Module-level collections that are tables: built when the module loads (top-level statements) and never changed after. */
const TABLES = new Set([
  'common/src/language/grammar.ts:CHILD_ITEMS', 'common/src/language/grammar.ts:CHILD_PATTERNS', 'common/src/language/views.ts:ACCESSORS',
  'common/src/language/lexer.ts:KEYWORD_IDS', 'common/src/language/lexer.ts:WORDS', 'common/src/language/keywords.ts:byName', 'common/src/language/keywords.ts:BUCKET_BY_NAME',
  'common/src/language/parser.ts:AGGREGATION_SET', 'common/src/language/parser.ts:BUCKET_SET', 'common/src/language/parser.ts:WORD_OPERATOR_SET', 'common/src/language/parser.ts:UNITS',
  'common/src/language/parser.ts:PERIOD_OVER_PERIOD_SET', 'common/src/language/parser.ts:TO_DATE_UNITS', 'common/src/language/parser.ts:PERIODS', 'common/src/language/parser.ts:DAYS',
  'common/src/language/parser.ts:MONTHS', 'common/src/language/parser.ts:QUARTERS', 'common/src/language/parser.ts:PAREN_KEYWORDS', 'common/src/language/parser.ts:DISTANCE_UNIT_SET',
  'common/src/language/parser.ts:UNSUPPORTED', 'common/src/languageService/validation.ts:NOT_IN_EMULATOR', 'common/src/languageService/validation.ts:TEXT_OPS',
  'common/src/languageService/validation.ts:ORDER_OPS', 'common/src/language/grammar.ts:KEYWORDS_BEFORE_COLUMN', 'common/src/language/grammar.ts:KEYWORDS_BEFORE_DATE_UNIT',
  'common/src/language/keywords.ts:NUMERIC_TYPES', 'common/src/language/keywords.ts:TEXT_TYPES', 'common/src/language/keywords.ts:CALENDAR_TYPES', 'common/src/language/keywords.ts:DATE_TYPES',
  'common/src/language/keywords.ts:TIME_OF_DAY_BUCKETS', 'common/src/language/keywords.ts:NUMERIC_AGGREGATIONS', 'common/src/languageService/completion.ts:WORD_START_CATEGORIES',
  'common/src/languageService/completion.ts:MULTI_WORD_HEADS', 'common/src/languageService/completion.ts:BOOLEAN_NAMES',
]);

/**
 * Module-level collections changed inside a function that are no cache, with why:
 * - tree.ts PART_DIAGNOSTICS: the syntax diagnostics of a part, set once in that part's constructor and read
 *   only through it (a field kept off the parts that have none: a 1 MB document has about 19,000 parts).
 *   It holds nothing of a service: a part belongs to one service's parse, and its entry goes with it.
 */
const SIDE_TABLES = new Set(['common/src/language/tree.ts:PART_DIAGNOSTICS']);

const COLLECTIONS = new Set(['Map', 'WeakMap', 'Set', 'WeakSet']);
const MUTATORS = new Set(['set', 'add', 'delete', 'clear']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Strips `as`, `satisfies`, `!` and parentheses. */
function bare(e: ts.Expression): ts.Expression {
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

/** What a source text holds of module state: `tables` (module-level collections), `changed` (those changed inside a function), `lets` (module-level `let`s). */
export function moduleState(fileName: string, text: string): { tables: string[]; changed: string[]; lets: string[] } {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const tables: string[] = [];
  const lets: string[] = [];
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const isLet = (st.declarationList.flags & ts.NodeFlags.Let) !== 0;
    for (const d of st.declarationList.declarations) {
      if (!ts.isIdentifier(d.name)) continue;
      if (isLet) lets.push(d.name.text);
      const init = d.initializer && bare(d.initializer);
      if (init && ts.isNewExpression(init) && ts.isIdentifier(init.expression) && COLLECTIONS.has(init.expression.text)) tables.push(d.name.text);
    }
  }
  const changed = new Set<string>();
  const visit = (n: ts.Node, inFunction: boolean): void => {
    if (inFunction && ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && MUTATORS.has(n.expression.name.text)) {
      const target = bare(n.expression.expression);
      if (ts.isIdentifier(target) && tables.includes(target.text)) changed.add(target.text);
    }
    ts.forEachChild(n, (c) => visit(c, inFunction || ts.isFunctionLike(n)));
  };
  visit(sf, false);
  return { tables, changed: [...changed], lets };
}

test('the scan finds a cache, a module-level let, and lets a table filled at load pass', () => {
  const cache = "const templates = new Map<string, number>();\nexport function f(k: string) { let v = templates.get(k); if (v === undefined) templates.set(k, (v = k.length)); return v; }";
  assert.deepEqual(moduleState('a.ts', cache), { tables: ['templates'], changed: ['templates'], lets: [] });
  const weak = "const seen = new WeakMap<object, string>() as WeakMap<object, string>;\nconst g = (o: object) => { seen.set(o, 'x'); };";
  assert.deepEqual(moduleState('b.ts', weak).changed, ['seen']);
  const table = "const byName = new Map<string, number>();\nfor (const k of ['a', 'b']) byName.set(k, k.length);\nexport const get = (k: string) => byName.get(k);\nlet last = 0;";
  assert.deepEqual(moduleState('c.ts', table), { tables: ['byName'], changed: [], lets: ['last'] });
});

test('no module state in the language and the language service: tables only, each listed', () => {
  const problems: string[] = [];
  for (const part of PARTS) {
    for (const file of files(join(root, part))) {
      const rel = relative(root, file).split('\\').join('/');
      const state = moduleState(rel, readFileSync(file, 'utf8'));
      for (const name of state.lets) problems.push(`${rel}: module-level let ${name} (module state)`);
      for (const name of state.changed) if (!SIDE_TABLES.has(`${rel}:${name}`)) problems.push(`${rel}: ${name} is changed inside a function (a cache: keep it in ServiceContext.memo)`);
      for (const name of state.tables) if (!TABLES.has(`${rel}:${name}`) && !SIDE_TABLES.has(`${rel}:${name}`)) problems.push(`${rel}: ${name} is a module-level collection not listed in TABLES`);
    }
  }
  assert.deepEqual(problems, []);
});

test('two services keep their own column templates: one connection\'s columns never answer for another\'s same-named data source', async () => {
  const catalogOf = (column: string) => ({
    getDataSources: async () => [{ id: 'g1', name: 'sales', type: 'WORKSHEET' }],
    getColumns: async () => ({ id: 'g1', name: 'sales', columns: [{ name: column, dataType: 'VARCHAR', kind: 'ATTRIBUTE' }] }),
  });
  // @ts-expect-error: a catalog of only what completion reads
  const a = getLanguageService({ catalog: catalogOf('region') });
  // @ts-expect-error: a catalog of only what completion reads
  const b = getLanguageService({ catalog: catalogOf('country') });
  const doc = TextDocument.create('file:///q.tsq', 'tsq', 1, "@datasource 'sales'\n[");
  const labels = async (s: typeof a) => (await s.doComplete(doc, { line: 1, character: 1 })).items.map((i) => i.label);
  assert.deepEqual(await labels(a), ['region']);
  assert.deepEqual(await labels(b), ['country']);
});
