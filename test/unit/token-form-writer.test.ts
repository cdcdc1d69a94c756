// The writer of the token form (common/src/tml/tokenForm.ts), the one an emulator export of an Answer TML
// uses for its `search_query`: each construct as ThoughtSpot writes it (docs/service-notes.md §2.11), a
// column by its name in the data source, what it cannot write left as written, and a fixed point over every
// example of the keyword catalogue (the token form of a token form is itself, and reads as the typed query).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYWORDS } from '../../common/src/language/keywords';
import { parseQuery } from '../../common/src/language/parser';
import { tokenForm, type TokenFormColumn } from '../../common/src/tml/tokenForm';

const FLIGHTS: TokenFormColumn[] = [
  { name: 'date', dataType: 'DATE_TIME' }, { name: 'delay', dataType: 'INT32' }, { name: 'distance', dataType: 'INT32' },
  { name: 'origin', dataType: 'VARCHAR', synonyms: ['from'] }, { name: 'destination', dataType: 'VARCHAR', synonyms: ['to'] }, { name: 'is delayed', dataType: 'BOOL' },
];

test('each construct as ThoughtSpot writes it', () => {
  for (const [typed, written] of [
    ["[origin] = 'SEA'", '[origin].SEA'],
    ["[destination] = 'los angeles'", "[destination].'los angeles'"],
    ['[delay] = 10', '[delay].10'],
    ['[is delayed] = true', '[is delayed].true'],
    ["[origin] = 'SEA', 'PDX'", '[origin] = [origin].SEA [origin].PDX'],
    ["[origin] != 'SEA'", '[origin] != [origin].SEA'],
    ['[date] last 180 days', "[date].'last 180 days'"],
    ['[origin] = {null}', '[origin].{null}'],
    ["[date] between '01/15/2001' and '03/31/2001'", '[date] between [date].01/15/2001 and [date].03/31/2001'],
    ['sort by [date].daily descending', 'sort by [date] [date].daily descending'],
    ["[FROM]  sum [Delay]   [to] = 'SEA'", '[origin] sum [delay] [destination].SEA'],
    ['top [origin] [delay]', 'top 10 [origin] [delay]'],
  ] as const) assert.equal(tokenForm(typed, FLIGHTS), written, typed);
});

test('what has no token form, or would read otherwise, stays as written', () => {
  for (const q of [
    "[origin] contains 'SE'", '[delay] > 100', "[origin] = 'monthly'", "[origin] similar to 'S%' or 'P%'", '[delay] today by [origin]',
    "[origin] in ([origin] [destination] = 'SEA')", '[origin] [delay] for sum [delay] > 5000', 'top 20 [origin] ranked by count [destination]',
  ]) assert.equal(tokenForm(q, FLIGHTS), q);
  // a clause the writer leaves keeps its text; the others around it are written
  assert.equal(tokenForm("[origin] = 'monthly' [origin] = 'SEA'", FLIGHTS), "[origin] = 'monthly' [origin].SEA");
  assert.equal(tokenForm('  [origin] = (  ', FLIGHTS), '[origin] = (', 'a syntax error: trimmed, not rewritten');
});

test('a fixed point over the catalogue: the token form of the token form is itself, and reads as typed', () => {
  for (const k of KEYWORDS) {
    const written = tokenForm(k.example, FLIGHTS);
    assert.equal(tokenForm(written, FLIGHTS), written, k.example);
    const kinds = (q: string) => parseQuery(q).query?.clauses.map((c) => c.kind);
    assert.deepEqual(kinds(written), kinds(k.example), `${k.example} → ${written}`);
  }
});
