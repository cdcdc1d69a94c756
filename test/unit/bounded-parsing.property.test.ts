/**
 * Bounded parsing (SECURITY.md, "Bounded parsing"): the query parser and the one TML reader
 * (common/src/tml/boundedYaml.ts) take time linear in the length of the text for any text — random and
 * adversarial ones (unclosed brackets, quotes and parentheses, deep nesting, many keys, aliases, long
 * tokens) up to 1 MB — and no text drives them past the stack. Linear is asserted as a ratio measured in
 * the same run, never as a wall-clock limit: the best of five times of a text eight times as long is under
 * 24 times that of the text (linear makes it 8, a scan per token, as `(((…` and 30,000 keys had, 64; the
 * margin is for the other work of a shared machine), the collector's pauses left out (`timed`).
 */
import { after, test } from 'node:test';
import { PerformanceObserver } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseDocument, MAX_SUBSEARCH_DEPTH } from '../../common/src/language/parser';
import { NESTING_TOO_DEEP, UNCLOSED_PAREN } from '../../common/src/language/diagnosticCodes';
import { readBoundedYaml, TML_LIMITS, type YamlLimits } from '../../common/src/tml/boundedYaml';

/** The garbage collector's pauses (start and duration, ms), as the runtime reports them. */
const pauses: { start: number; duration: number }[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push({ start: e.startTime, duration: e.duration });
});
gcObserver.observe({ entryTypes: ['gc'] });
after(() => gcObserver.disconnect());

/**
 * The time (ms) of `reps` calls of `f()` less the collector's pauses inside it: the pauses grow with the
 * heap the text's objects fill (a heuristic of the runtime, not work of the reader), and on a large text
 * they were most of the time and its noise.
 */
async function timed(f: () => unknown, reps: number): Promise<number> {
  const t0 = performance.now();
  for (let k = 0; k < reps; k++) f();
  const t1 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 0)); // the pauses are reported after the call
  let gc = 0;
  for (const p of pauses) if (p.start >= t0 && p.start < t1) gc += Math.min(p.duration, t1 - p.start);
  pauses.length = 0;
  return Math.max(t1 - t0 - gc, 0.01);
}

/** The best of five `timed` measures: the least disturbed by the other work of the machine. */
async function best(f: () => unknown, reps: number): Promise<number> {
  let min = Infinity;
  for (let r = 0; r < 5; r++) min = Math.min(min, await timed(f, reps));
  return min;
}

/**
 * time(text of GROWTH × n) / time(text of n), `make(n)` a text of about n characters; a text read in under 20 ms
 * is read several times per measure (the same number for both), so that the timer's grain does not count.
 * A ratio over `LINEAR` is measured again, twice at most, and the least kept: the other work of the
 * machine only ever makes a ratio larger, and a reader that is not linear is over it every time.
 */
async function growth(make: (n: number) => string, n: number, read: (text: string) => unknown): Promise<number> {
  const a = make(n);
  const b = make(GROWTH * n);
  const t0 = performance.now();
  read(a); // warm up, and calibrate
  read(b);
  const reps = Math.min(100, Math.ceil(20 / Math.max(performance.now() - t0, 0.01)));
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio >= LINEAR; attempt++) {
    const ta = await best(() => read(a), reps);
    const tb = await best(() => read(b), reps);
    ratio = Math.min(ratio, tb / ta);
  }
  return ratio;
}

/** How much longer the second text of `growth` is. */
const GROWTH = 8;
/**
 * The bound of `growth`: three times the ratio of a linear reader (a run in CI with other tests beside it
 * measured 8.1 for a linear one at a growth of 4), well under the 64 of a quadratic one.
 */
const LINEAR = 3 * GROWTH;

/** `unit` repeated to at least `n` characters. */
const repeat = (unit: string) => (n: number): string => unit.repeat(Math.ceil(n / unit.length));

const QUERY_UNITS = [
  '(', ')', '[', ']', "'", '"', '[a', "'a", '[a] in (', 'in (', 'not in (', 'quarter (', 'f(', 'sum(', '{', '@', '@datasource \'', '@datasource x\n',
  'ranked by [a] ', 'top 1 ', 'sort by ', '[a].', "[a] = 'x', ", '[a] between ', 'between 1 and ', '-- c\n', '\n', '\n\n', ';', '\r', 'é', '\u0000',
  '[a] ', 'x', '1', '1 ', '-', 'calendar.', ',', '.', "''", "'''", '[[a]]', '[a]b]', '(\n', '[a] in (\n', "[a] in ([b] = 'x'",
];

const YAML_UNITS = [
  'a: 1\n', '- x\n', '[', '{', ']', '}', "'", '"', '? k\n', 'a: [1, 2]\n', '{a: ', '[a, ', '- ', '  ', 'a:\n  ', '&a x\n', '*a\n', '- &a [1]\n- *a\n',
  '"k": 1\n', 'k: "v\n', "k: 'v\n", '#c\n', '---\n', 'a: |\n  x\n', 'a: >\n  x\n', ': ', ',', '!!str x\n', '%YAML 1.2\n', '\t', 'x'.repeat(100), '\n',
];

const parse = (text: string): unknown => parseDocument(text);
/** The TML reader without the entries and aliases limits: the duplicate-key check and the depth walk themselves measured. */
const UNBOUNDED: YamlLimits = { ...TML_LIMITS, entries: Infinity, aliases: Infinity };

test('the query parser is linear for adversarial texts (the ratio of 128 KB to 16 KB; of 1 MB to 128 KB for the worst)', async () => {
  for (const unit of QUERY_UNITS) {
    const r = await growth(repeat(unit), 16 * 1024, parse);
    assert.ok(r < LINEAR, `${JSON.stringify(unit)} repeated: time(128 KB) / time(16 KB) = ${r.toFixed(2)}`);
  }
  for (const unit of ['(', ')', '[a] in (', "'", '[a', 'ranked by [a] ']) {
    const r = await growth(repeat(unit), 128 * 1024, parse);
    assert.ok(r < LINEAR, `${JSON.stringify(unit)} repeated: time(1 MB) / time(128 KB) = ${r.toFixed(2)}`);
  }
});

test('the query parser is linear for random texts (fast-check: a random mix of adversarial pieces, repeated)', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom(...QUERY_UNITS), { minLength: 1, maxLength: 8 }), async (parts) => {
    const r = await growth(repeat(parts.join('')), 8 * 1024, parse);
    assert.ok(r < LINEAR, `${JSON.stringify(parts.join(''))} repeated: ratio ${r.toFixed(2)}`);
  }), { numRuns: 20 });
});

test('80,000 unclosed ( are each reported, and the parse stays linear', async () => {
  const doc = parseDocument('('.repeat(80_000));
  assert.ok(doc.diagnostics.some((d) => d.code === UNCLOSED_PAREN));
  const r = await growth((n) => '('.repeat(n), 80_000, parse);
  assert.ok(r < LINEAR, `time(640,000 "(") / time(80,000 "(") = ${r.toFixed(2)}`);
});

test(`50,000 nested subsearches: a diagnostic at level ${MAX_SUBSEARCH_DEPTH + 1}, no stack overflow, a tree no deeper than the limit`, async () => {
  const n = 50_000;
  const text = '[a] in ('.repeat(n) + '[b]' + ')'.repeat(n);
  const doc = parseDocument(text);
  const deep = doc.diagnostics.filter((d) => d.code === NESTING_TOO_DEEP);
  assert.equal(deep.length, 1);
  assert.equal(deep[0]!.start, '[a] in ('.length * MAX_SUBSEARCH_DEPTH + '[a] '.length, 'on the `in` of the first level past the limit');
  // the clauses nest MAX_SUBSEARCH_DEPTH levels, then an error clause over the rest
  let clauses = doc.queries[0]!.clauses;
  let depth = 0;
  for (;;) {
    const sub = clauses.find((c) => c.kind === 'subsearch');
    if (!sub || sub.kind !== 'subsearch') break;
    clauses = sub.clauses;
    depth++;
  }
  assert.equal(depth, MAX_SUBSEARCH_DEPTH);
  assert.ok(clauses.some((c) => c.kind === 'error'));
  const r = await growth((k) => '[a] in ('.repeat(k / 16) + ')'.repeat(k / 16), 128_000, parse);
  assert.ok(r < LINEAR, `nested subsearches: ratio ${r.toFixed(2)}`);
});

test('the TML reader: 30,000 keys are refused under its limits, and a duplicate key is found in linear time without them', async () => {
  const keys = (n: number): string => 'answer:\n' + Array.from({ length: n }, (_, i) => `  k${i}: v${i}\n`).join('');
  const read = readBoundedYaml(keys(30_000));
  assert.equal(read.exceeded?.limit, 'entries');
  assert.equal(read.doc.contents, null, 'an empty document: no more work on it');
  // without the entries limit: every key read, the one duplicate found, time linear in the keys
  const dup = readBoundedYaml(keys(30_000) + '  k7: again\n', UNBOUNDED);
  assert.equal(dup.exceeded, undefined);
  assert.deepEqual(dup.doc.errors.map((e) => e.code), ['DUPLICATE_KEY']);
  const r = await growth((n) => keys(Math.round(n / 12)), 64 * 1024, (t) => readBoundedYaml(t, UNBOUNDED));
  assert.ok(r < LINEAR, `keys: time(512 KB) / time(64 KB) = ${r.toFixed(2)}`);
});

test('the TML reader: depth, aliases and size over the limits are refused; a valid TML reads as before', async () => {
  assert.equal(readBoundedYaml('a:\n' + Array.from({ length: 80 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:\n`).join('') + '  '.repeat(81) + 'x\n').exceeded?.limit, 'depth');
  assert.equal(readBoundedYaml('['.repeat(200_000)).exceeded?.limit, 'depth');
  assert.equal(readBoundedYaml('- '.repeat(200_000) + 'x').exceeded?.limit, 'entries', 'each - is an entry');
  assert.equal(readBoundedYaml('- '.repeat(200_000) + 'x', UNBOUNDED).exceeded?.limit, 'depth');
  assert.equal(readBoundedYaml('a: &a [1]\nb: [' + Array(200).fill('*a').join(', ') + ']\n').exceeded?.limit, 'aliases');
  assert.equal(readBoundedYaml('x'.repeat(TML_LIMITS.chars + 1)).exceeded?.limit, 'chars');
  const text = "guid: 0\nanswer:\n  name: n\n  tables: [{id: t, name: t}]\n  search_query: '[a] [b]'\n  name: again\n";
  const ok = readBoundedYaml(text);
  assert.equal(ok.exceeded, undefined);
  assert.deepEqual(ok.doc.errors.map((e) => [e.code, e.message, e.pos[0]]), [['DUPLICATE_KEY', 'Map keys must be unique', text.indexOf('name: again')]]);
  assert.deepEqual(ok.doc.toJS(), { guid: 0, answer: { name: 'again', tables: [{ id: 't', name: 't' }], search_query: '[a] [b]' } });
});

test('the TML reader keeps the first errors and makes no more: 1 MB of ] or of duplicate keys', async () => {
  const brackets = readBoundedYaml(']'.repeat(TML_LIMITS.chars));
  assert.equal(brackets.doc.errors.length, TML_LIMITS.errors);
  const dups = readBoundedYaml('a: 1\n'.repeat(10_000));
  assert.equal(dups.doc.errors.length, TML_LIMITS.errors);
  assert.ok(dups.doc.errors.every((e) => e.code === 'DUPLICATE_KEY'));
});

test('the TML reader is linear for adversarial and random texts up to 1 MB (the ratio of 8N to N)', async () => {
  const read = (t: string): unknown => readBoundedYaml(t, UNBOUNDED);
  for (const unit of YAML_UNITS) {
    const r = await growth(repeat(unit), 16 * 1024, read);
    assert.ok(r < LINEAR, `${JSON.stringify(unit)} repeated: time(128 KB) / time(16 KB) = ${r.toFixed(2)}`);
  }
  // under the limits, up to the size limit
  for (const unit of ['a: 1\n', '- x\n', '[', ']', '{a: ', '*a\n']) {
    const r = await growth(repeat(unit), TML_LIMITS.chars / GROWTH - 16, (t) => readBoundedYaml(t));
    assert.ok(r < LINEAR, `${JSON.stringify(unit)} repeated, under TML_LIMITS: time(1 MB) / time(128 KB) = ${r.toFixed(2)}`);
  }
  await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom(...YAML_UNITS), { minLength: 1, maxLength: 6 }), async (parts) => {
    const r = await growth(repeat(parts.join('')), 4 * 1024, read);
    assert.ok(r < LINEAR, `${JSON.stringify(parts.join(''))} repeated: ratio ${r.toFixed(2)}`);
  }), { numRuns: 15 });
});
