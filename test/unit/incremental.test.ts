/**
 * The incremental re-parse (common/src/language/incremental.ts `reparseDocument`) gives exactly the
 * parse of the whole text: property-based over random documents (token soups with directives, comments,
 * separators and broken syntax) and random edits, and on the 2,000-query shape of the language
 * benchmark; and it splices: the unchanged parts of the tree are the same objects, none copied or shifted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseDocument } from '../../common/src/language/parser';
import { reparseDocument } from '../../common/src/language/incremental';

const fragments = [
  '[origin]', '[delay]', '[date]', '[', ']', '[]', '[a[b]', "'", "'SEA'", "'tom's'", '"x"', '=', '!=', '<', '>=', ',', '.', ';', ';', ';',
  '(', ')', '{null}', '{', '-', '--', '-- comment', '@datasource', "@datasource 'Flights'", '@datasource Cars', "@datasource 'Cars'", '@x',
  'sort by', 'sort', 'by', 'top', '10', '-5', 'between', 'and', 'contains', 'not', 'last', '7', 'days', 'ago', 'for each', 'sum',
  'monthly', "'day of week'", 'ranked by', 'origin', '#', '\uD83D', 'é', '\t', ' ', '\n', '\r\n', '\n\n', '\n\n', '+', 'sum(',
];
const soup = fc.array(fc.constantFrom(...fragments), { maxLength: 80 }).chain((parts) =>
  fc.array(fc.constantFrom(' ', ' ', '\n', ''), { minLength: parts.length, maxLength: parts.length }).map((seps) => parts.map((p, i) => p + seps[i]).join('')));
const edit = fc.record({ at: fc.nat(), del: fc.nat({ max: 6 }), ins: fc.oneof(fc.constantFrom(...fragments, ''), fc.string({ maxLength: 4 })) });

/** The document as plain data (the comparison ignores which objects are shared). */
const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;

test('reparseDocument equals parseDocument after any edit of any document', () => {
  fc.assert(fc.property(soup, fc.array(edit, { minLength: 1, maxLength: 5 }), (text, edits) => {
    let prevText = text;
    let prev = parseDocument(text);
    for (const e of edits) {
      const at = e.at % (prevText.length + 1);
      const next = prevText.slice(0, at) + e.ins + prevText.slice(at + e.del);
      const inc = reparseDocument(prevText, prev, next);
      const whole = parseDocument(next);
      assert.deepStrictEqual(plain(inc), plain(whole), `edit ${JSON.stringify(e)} of ${JSON.stringify(prevText)}`);
      // the reparse shifts the previous parts' starts instead of summing the widths again: the same
      assert.deepStrictEqual(inc.partStarts(), whole.partStarts(), `starts after edit ${JSON.stringify(e)} of ${JSON.stringify(prevText)}`);
      prevText = next;
      prev = inc;
    }
  }), { numRuns: 3000 });
});

test('deleting the line break before a query glues it to the directive line above: not reused as it was', () => {
  // found by the property above (seed 1326070234): the old "not" query, a stray word, was moved and
  // kept its warning, where after the edit it is stray text after the directive (an error)
  const text = "@datasource 'Flights''tom's'\n@datasource 'Flights'\nnot ";
  const at = text.lastIndexOf('\n');
  const next = text.slice(0, at) + text.slice(at + 1);
  const inc = reparseDocument(text, parseDocument(text), next);
  assert.deepStrictEqual(plain(inc), plain(parseDocument(next)));
  assert.ok(inc.diagnostics.some((d) => d.code === 'tsq.strayCharacter' && d.start === next.indexOf('not')));
});

test('a one-character edit in a 2,000-query document reuses the other queries', () => {
  let text = "@datasource 'Wide'\n";
  for (let q = 0; q < 2000; q++) text += `[c${q % 37}] [d${q % 11}].monthly sort by [m${q % 5}] descending [t${q % 7}] = 'A${q}' top ${1 + (q % 50)}${q % 3 === 0 ? '\n\n' : ';\n'}`;
  const doc = parseDocument(text);
  const at = text.indexOf("'A1000'") + 2;
  const next = text.slice(0, at) + 'x' + text.slice(at);
  const inc = reparseDocument(text, doc, next);
  // the parts the reparse made (a trivia part between two parts has no object until it is asked for,
  // and is then made apart in each document: counted before anything asks)
  const fresh = new Set(inc.slots.filter((p) => p !== undefined && !doc.slots.includes(p)));
  assert.deepStrictEqual(plain(inc), plain(parseDocument(next)));
  assert.equal(inc.queries.length, 2000);
  // the tree's parts hold widths, not offsets: the parts before and after the edit are the same objects,
  // nothing of a later query is copied or shifted (its offsets move with the parts before it)
  assert.equal(inc.queryPart(999), doc.queryPart(999), 'a query before the edit keeps its part');
  assert.notEqual(inc.queryPart(1000), doc.queryPart(1000), 'the edited query is parsed again');
  assert.equal(inc.queryPart(1500), doc.queryPart(1500), 'a query after the edit keeps its part: spliced, not shifted');
  assert.equal(inc.queries[1500]!.start, doc.queries[1500]!.start + 1, 'a query after the edit moved by one');
  assert.equal(inc.queries[1500]!.dataSourceDirective, inc.directives[0], 'the directive in force is the document\'s own');
  assert.ok(fresh.size <= 3, `only the edited query and the trivia around it are new parts (${fresh.size})`);
});
