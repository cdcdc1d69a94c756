/**
 * Snapshot tests of the TextMate grammar (syntaxes/tsq.tmLanguage.json), tokenized with the engine VS Code
 * uses (vscode-textmate + vscode-oniguruma), plus direct assertions of the key scopes.
 *
 * Each `fixtures/<name>.tsq` is tokenized line by line and compared with `fixtures/<name>.tsq.snap`.
 * Update the snapshots after an intended grammar change with:
 *   UPDATE_SNAPSHOTS=1 node --import tsx --test test/grammar/grammar.test.ts
 * and review the diff before committing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INITIAL, Registry, parseRawGrammar } from 'vscode-textmate';
import type { IGrammar, StateStack } from 'vscode-textmate';
import { OnigScanner, OnigString, loadWASM } from 'vscode-oniguruma';
import { KEYWORDS } from '../../common/src/language/keywords';
import { GRAMMAR_PATH, tmGrammar } from '../../scripts/tmGrammar';

const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, 'fixtures');
const grammarPath = join(root, 'syntaxes', 'tsq.tmLanguage.json');
const update = process.env.UPDATE_SNAPSHOTS === '1';

let grammarPromise: Promise<IGrammar> | undefined;

/** Loads the grammar once (oniguruma's WASM can only be loaded once per process). */
function loadGrammar(): Promise<IGrammar> {
  grammarPromise ??= (async () => {
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new OnigScanner(patterns),
        createOnigString: (s: string) => new OnigString(s),
      }),
      loadGrammar: async (scopeName: string) =>
        scopeName === 'source.tsq' ? parseRawGrammar(readFileSync(grammarPath, 'utf8'), grammarPath) : null,
    });
    const grammar = await registry.loadGrammar('source.tsq');
    if (!grammar) throw new Error('the grammar source.tsq did not load');
    return grammar;
  })();
  return grammarPromise;
}

/** A token: its text and its scopes without the root `source.tsq`. */
interface Token {
  text: string;
  scopes: string[];
}

/** Tokenizes a text line by line (state carried across lines, as in the editor). */
async function tokenize(text: string): Promise<Token[][]> {
  const grammar = await loadGrammar();
  let state: StateStack = INITIAL;
  return text.split(/\r?\n/).map((line) => {
    const result = grammar.tokenizeLine(line, state);
    state = result.ruleStack;
    return result.tokens.map((t) => ({
      text: line.slice(t.startIndex, t.endIndex),
      scopes: t.scopes.filter((s) => s !== 'source.tsq'),
    }));
  });
}

/** The snapshot format: each line, then one indented row per non-blank token with its scopes. */
function renderSnapshot(text: string, lines: Token[][]): string {
  const source = text.split(/\r?\n/);
  const out: string[] = [];
  lines.forEach((tokens, i) => {
    out.push(`> ${source[i]}`);
    for (const t of tokens) {
      if (t.text.trim() === '' && t.scopes.length === 0) continue;
      out.push(`  ${JSON.stringify(t.text)} ${t.scopes.join(' ') || '-'}`);
    }
  });
  return out.join('\n') + '\n';
}

/** The scopes of the first token whose text is exactly `text` on line `line`. */
function scopesOf(lines: Token[][], line: number, text: string): string[] {
  const token = lines[line].find((t) => t.text === text);
  assert.ok(token, `no token ${JSON.stringify(text)} on line ${line}: ${JSON.stringify(lines[line].map((t) => t.text))}`);
  return token.scopes;
}

const fixtureFiles = readdirSync(fixtures).filter((f) => f.endsWith('.tsq')).sort();

test('there are grammar fixtures', () => {
  assert.ok(fixtureFiles.length >= 3, `found ${fixtureFiles.join(', ')}`);
});

for (const file of fixtureFiles) {
  test(`snapshot: ${file}`, async () => {
    const text = readFileSync(join(fixtures, file), 'utf8').replace(/\n$/, '');
    const actual = renderSnapshot(text, await tokenize(text));
    const snapPath = join(fixtures, `${file}.snap`);
    if (update || !existsSync(snapPath)) {
      if (!update) assert.fail(`missing snapshot ${file}.snap; run with UPDATE_SNAPSHOTS=1 and review it`);
      writeFileSync(snapPath, actual);
      return;
    }
    assert.equal(actual, readFileSync(snapPath, 'utf8'), `tokens of ${file} differ from ${file}.snap (UPDATE_SNAPSHOTS=1 to accept an intended change)`);
  });
}

test('comments, directive, columns, buckets, values, numbers, operators and terminators get their scopes', async () => {
  const lines = await tokenize([
    "-- note [x] 'y'",
    "@datasource 'Flights' -- by name",
    "[origin] [date].monthly [date].'day of week' = 'SEA', 'PDX' top 10 [delay] >= -2.5;",
    '[d] calendar.fiscal [e] != {null} [f] = {Empty}',
  ].join('\n'));
  // A comment swallows what looks like a column or a value.
  assert.deepEqual(lines[0].map((t) => t.scopes.at(-1)), ['punctuation.definition.comment.tsq', 'comment.line.double-dash.tsq']);
  assert.equal(lines[0][1].text, " note [x] 'y'");

  assert.ok(scopesOf(lines, 1, '@').includes('punctuation.definition.directive.tsq'));
  assert.ok(scopesOf(lines, 1, 'datasource').includes('keyword.control.directive.datasource.tsq'));
  assert.ok(scopesOf(lines, 1, 'Flights').includes('string.quoted.single.tsq'));
  assert.ok(scopesOf(lines, 1, ' by name').includes('comment.line.double-dash.tsq'));

  assert.ok(scopesOf(lines, 2, 'origin').includes('variable.other.column.tsq'));
  assert.ok(scopesOf(lines, 2, '[').includes('punctuation.definition.column.begin.tsq'));
  assert.ok(scopesOf(lines, 2, 'monthly').includes('support.constant.bucket.tsq'));
  assert.ok(scopesOf(lines, 2, 'day of week').includes('support.constant.bucket.tsq'));
  assert.ok(scopesOf(lines, 2, '=').includes('keyword.operator.comparison.tsq'));
  assert.ok(scopesOf(lines, 2, 'SEA').includes('string.quoted.single.tsq'));
  assert.ok(scopesOf(lines, 2, ',').includes('punctuation.separator.value.tsq'));
  assert.ok(scopesOf(lines, 2, 'top').includes('keyword.control.tsq'));
  assert.ok(scopesOf(lines, 2, '10').includes('constant.numeric.tsq'));
  assert.ok(scopesOf(lines, 2, '>=').includes('keyword.operator.comparison.tsq'));
  assert.ok(scopesOf(lines, 2, '-2.5').includes('constant.numeric.tsq'));
  assert.ok(scopesOf(lines, 2, ';').includes('punctuation.terminator.query.tsq'));

  assert.ok(scopesOf(lines, 3, 'calendar').includes('keyword.other.calendar.tsq'));
  assert.ok(scopesOf(lines, 3, 'fiscal').includes('entity.name.type.calendar.tsq'));
  assert.ok(scopesOf(lines, 3, '{null}').includes('constant.language.tsq'));
  assert.ok(scopesOf(lines, 3, '{Empty}').includes('constant.language.tsq'));
});

test('multi-word keywords are one token, case-insensitive, longest alternative first', async () => {
  const lines = await tokenize("[t] NOT  Begins With 'a' [t] not contains 'b' sort by [t] for each [g] unique count [t] year to date [d] day of week [x] not in ( [x] ) year-over-year");
  assert.ok(scopesOf(lines, 0, 'NOT  Begins With').includes('keyword.operator.word.text.tsq'));
  assert.ok(scopesOf(lines, 0, 'not contains').includes('keyword.operator.word.text.tsq'));
  assert.ok(scopesOf(lines, 0, 'sort by').includes('keyword.control.tsq'));
  assert.ok(scopesOf(lines, 0, 'for each').includes('keyword.control.tsq'));
  assert.ok(scopesOf(lines, 0, 'unique count').includes('support.function.aggregation.tsq'));
  assert.ok(scopesOf(lines, 0, 'year to date').includes('keyword.other.date.tsq'));
  assert.ok(scopesOf(lines, 0, 'day of week').includes('support.constant.bucket.tsq'));
  assert.ok(scopesOf(lines, 0, 'not in').includes('keyword.operator.word.in.tsq'));
  assert.ok(scopesOf(lines, 0, 'year-over-year').includes('keyword.other.date.tsq'));
});

test('unterminated values and columns are marked invalid and do not leak into the next line', async () => {
  const lines = await tokenize("[origin] = 'SEA\n[origin\n[delay] top 5");
  assert.ok(scopesOf(lines, 0, 'SEA').includes('invalid.illegal.unterminated-string.tsq'));
  assert.ok(scopesOf(lines, 0, "'").includes('punctuation.definition.string.begin.tsq'));
  assert.ok(lines[1].some((t) => t.scopes.includes('invalid.illegal.unterminated-column.tsq')));
  assert.ok(scopesOf(lines, 2, 'delay').includes('variable.other.column.tsq'));
  assert.ok(scopesOf(lines, 2, 'top').includes('keyword.control.tsq'));
  assert.ok(scopesOf(lines, 2, '5').includes('constant.numeric.tsq'));
});

test('keywords inside column names and values stay names and values', async () => {
  const lines = await tokenize("[sort by] = 'top 10' [count]");
  assert.deepEqual(scopesOf(lines, 0, 'sort by'), ['meta.column.tsq', 'variable.other.column.tsq']);
  assert.deepEqual(scopesOf(lines, 0, 'top 10'), ['string.quoted.single.tsq']);
  assert.deepEqual(scopesOf(lines, 0, 'count'), ['meta.column.tsq', 'variable.other.column.tsq']);
});

test('language-configuration.json: -- comments, [] and () brackets, auto-closing [ and \' outside strings and comments', () => {
  const config = JSON.parse(readFileSync(join(root, 'language-configuration.json'), 'utf8')) as {
    comments: { lineComment: string };
    brackets: [string, string][];
    autoClosingPairs: { open: string; close: string; notIn?: string[] }[];
    surroundingPairs: [string, string][];
    wordPattern: string;
  };
  assert.equal(config.comments.lineComment, '--');
  assert.deepEqual(config.brackets, [['[', ']'], ['(', ')']]);
  const pair = (open: string) => config.autoClosingPairs.find((p) => p.open === open);
  assert.equal(pair('[')?.close, ']');
  assert.equal(pair("'")?.close, "'");
  assert.deepEqual(pair("'")?.notIn, ['string', 'comment']);
  assert.deepEqual(pair('[')?.notIn, ['string', 'comment']);
  assert.ok(config.surroundingPairs.some(([a, b]) => a === '[' && b === ']'));
  assert.ok(config.surroundingPairs.some(([a, b]) => a === "'" && b === "'"));
  const word = new RegExp(config.wordPattern, 'g');
  assert.deepEqual("[delay] year-over-year 'SEA' -2.5".match(word), ['delay', 'year-over-year', 'SEA', '-2.5']);
});

test('the checked-in grammar is the one generated from the keyword catalogue (node --import tsx scripts/tmGrammar.ts)', () => {
  assert.equal(readFileSync(GRAMMAR_PATH, 'utf8'), tmGrammar(), 'syntaxes/tsq.tmLanguage.json is stale: run node --import tsx scripts/tmGrammar.ts');
});

test('every word spelling of the catalogue gets a keyword scope', async () => {
  for (const info of KEYWORDS) {
    for (const spelling of [info.name, ...(info.aliases ?? [])].filter((s) => /^[a-z]/.test(s))) {
      const [line] = await tokenize(`[x] ${spelling} [y]`);
      const t = line!.find((x) => x.text.trim() === spelling);
      assert.ok(t && t.scopes.some((s) => /^(keyword|support|constant)\./.test(s)), `${spelling}: ${JSON.stringify(line)}`);
    }
  }
});

test("@answer 'GUID' is a directive (the link to a saved Answer), not an illegal one", async () => {
  const lines = await tokenize("@answer '6f853b5f-c9be-57d2-8b22-c0c34d1ce706'\n@datasource 'movies'");
  assert.ok(scopesOf(lines, 0, 'answer').includes('keyword.control.directive.answer.tsq'));
  assert.ok(scopesOf(lines, 0, '6f853b5f-c9be-57d2-8b22-c0c34d1ce706').includes('string.quoted.single.tsq'));
  assert.ok(!lines[0]!.some((t) => t.scopes.some((s) => s.startsWith('invalid.'))));
});
