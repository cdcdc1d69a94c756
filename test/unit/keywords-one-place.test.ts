// A keyword's facts live in one place, the keyword catalogue (common/src/language/keywords.ts): no other
// source file keeps a list naming keywords. The test reads every source file and fails on an array
// literal holding two or more catalogue spellings as strings, outside the catalogue and the allow-list
// below (each entry with why it is no list of the language's facts). Comparisons with one keyword
// (`x === 'today'`), `case` labels and the keys of records typed by the catalogue's unions are checked by
// TypeScript against those unions, so they are not lists that can drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { KEYWORDS } from '../../common/src/language/keywords';

const root = join(__dirname, '..', '..');
const SPELLINGS = new Set(KEYWORDS.flatMap((k) => [k.name, ...(k.aliases ?? [])]));

/** Lists that may name keywords, by file and the list's first spelling, with the reason. */
const ALLOWED: Record<string, string> = {
  // Parsing the month and day names of CSV date formats of a load (tsload's %B/%A), not search keywords.
  'emulator/src/load/convert.ts:january': 'month names of date formats in loaded files',
  'emulator/src/load/convert.ts:sunday': 'day names of date formats in loaded files',
  // Not a list: the two ends of a to-date range, `[start of the unit, end of today)`.
  'emulator/src/searchdata/compile.ts:day': 'the two ends of a range',
  // The column names of ThoughtSpot's custom calendar file (connections-cust-cal), a table's columns, not keywords.
  'emulator/src/customCalendar.ts:month': 'column names of a custom calendar table'
};

function* sources(dir: string): Generator<string> {
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) yield* sources(p);
    else if (/\.(ts|mjs)$/.test(p)) yield p;
  }
}

/** The array literals of a source holding two or more catalogue spellings as strings: `{ first, count }`. */
function keywordLists(text: string): { first: string; count: number; line: number }[] {
  const out: { first: string; count: number; line: number }[] = [];
  const re = /\[([^[\]]*)\]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const strings = [...m[1]!.matchAll(/'([^'\n]*)'/g)].map((x) => x[1]!).filter((s) => SPELLINGS.has(s));
    if (strings.length >= 2) out.push({ first: strings[0]!, count: strings.length, line: text.slice(0, m.index).split('\n').length });
  }
  return out;
}

test('no source file outside the keyword catalogue keeps a list of keywords', () => {
  const found: string[] = [];
  const used = new Set<string>();
  for (const dir of ['common/src', 'server/src', 'client/src', 'cli/src', 'emulator/src', 'scripts']) {
    for (const file of sources(join(root, dir))) {
      const rel = relative(root, file).split('\\').join('/');
      // the catalogue holds the keywords' facts; the grammar (grammar.ts, test/unit/grammar-once.test.ts)
      // the syntax's: which keywords lead each production, once
      if (rel === 'common/src/language/keywords.ts' || rel === 'common/src/language/grammar.ts') continue;
      for (const l of keywordLists(readFileSync(file, 'utf8'))) {
        const key = `${rel}:${l.first}`;
        if (ALLOWED[key]) used.add(key);
        else found.push(`${rel}:${l.line}: a list of ${l.count} keywords starting with '${l.first}'`);
      }
    }
  }
  assert.deepEqual(found, [], 'derive these from common/src/language/keywords.ts');
  assert.deepEqual(Object.keys(ALLOWED).filter((k) => !used.has(k)), [], 'allow-list entries that match nothing any more');
});

test('the check finds a list of keywords', () => {
  assert.deepEqual(keywordLists("const UNITS = new Set(['minute', 'hour', 'day']);\nif (x === 'today') {}").map((l) => [l.first, l.count]), [['minute', 3]]);
});
