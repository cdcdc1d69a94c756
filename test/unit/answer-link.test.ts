// The `@answer 'GUID'` link of a .tsq file to its saved Answer (common/src/tml/answerLink.ts): trivia to
// the parser (no diagnostic, not part of the query), found and replaced; and the conversions between an
// Answer TML and a .tsq file, both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from '../../common/src/language/parser';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLanguageService } from '../../common/src/languageService/languageService';
import { answerLinkOf, answerQueryOf, answerTmlOf, answerUpdateOf, tsqOfAnswer, withAnswerLink } from '../../common/src/tml/answerLink';

const G = '6f853b5f-c9be-57d2-8b22-c0c34d1ce706';

test('@answer is trivia: no diagnostic, the query text is the query alone', () => {
  const text = `@answer '${G}'\n@datasource 'movies'\n[Major Genre] [Worldwide Gross] top 5\n`;
  const ls = getLanguageService();
  const doc = TextDocument.create('file:///a.tsq', 'tsq', 1, text);
  assert.deepEqual(ls.parseDocument(doc).diagnostics, []);
  const [q] = ls.getQueries(doc);
  assert.equal(q!.text.trim(), '[Major Genre] [Worldwide Gross] top 5');
  assert.equal(q!.dataSource, 'movies');
  assert.deepEqual(parseQuery('[a]').diagnostics, []);
});

test('answerLinkOf finds the GUID and line; withAnswerLink replaces or adds it', () => {
  assert.deepEqual(answerLinkOf(`-- x\n@answer '${G.toUpperCase()}'\n[a]`), { guid: G, line: 1 });
  assert.equal(answerLinkOf('@answer nope\n[a]'), undefined);
  assert.equal(withAnswerLink(`@answer '${G}'\n[a]`, '00000000-0000-4000-8000-000000000000'), "@answer '00000000-0000-4000-8000-000000000000'\n[a]");
  assert.equal(withAnswerLink('[a]\n', G), `@answer '${G}'\n[a]\n`);
});

test('Answer TML ⇄ .tsq: the query, data source and GUID carry over; other members of the base are kept', () => {
  const base = `guid: ${G}\nanswer:\n  name: Top\n  description: kept\n  tables:\n  - id: movies\n    name: movies\n  search_query: "[Major Genre] [Worldwide Gross] top 5"\n  answer_columns:\n  - name: Major Genre\n  display_mode: CHART_MODE\n`;
  const a = answerQueryOf(base);
  assert.deepEqual(a, { guid: G, name: 'Top', dataSource: 'movies', query: '[Major Genre] [Worldwide Gross] top 5' });
  assert.equal(tsqOfAnswer(a), `@answer '${G}'\n@datasource 'movies'\n[Major Genre] [Worldwide Gross] top 5\n`);
  const back = answerQueryOf(answerTmlOf({ ...a, query: '[Director] [US Gross]' }, base));
  assert.equal(back.query, '[Director] [US Gross]');
  const kept = answerTmlOf({ ...a, query: '[Director]' }, base);
  assert.match(kept, /description: kept/);
  assert.match(kept, /display_mode: CHART_MODE/);
  assert.doesNotMatch(kept, /answer_columns/);
  assert.throws(() => answerQueryOf('table:\n  name: t\n'), /member answer is missing/);
});

test('the Update Answer diff compares what the service keeps: answer_columns (derived again) is on neither side', () => {
  // as the emulator and clusters export an answer: answer_columns and table.ordered_column_ids follow from the search
  const edoc = `guid: ${G}\nanswer:\n  name: Top\n  tables:\n  - id: movies\n    name: movies\n  search_query: "[Major Genre] [Worldwide Gross] top 5"\n  answer_columns:\n  - name: Major Genre\n  - name: Worldwide Gross\n  table:\n    ordered_column_ids:\n    - Major Genre\n    - Worldwide Gross\n  display_mode: TABLE_MODE\n`;
  const a = answerQueryOf(edoc);
  const same = answerUpdateOf(edoc, a);
  assert.equal(same.saved, same.next, 'an unchanged query: nothing to show');
  assert.doesNotMatch(same.saved, /answer_columns/);
  const changed = answerUpdateOf(edoc, { ...a, query: '[Director] [US Gross]' });
  const differ = (x: string, y: string) => x.split('\n').filter((l, i) => l !== y.split('\n')[i]);
  assert.deepEqual(differ(changed.saved, changed.next), ['  search_query: "[Major Genre] [Worldwide Gross] top 5"'], 'only the search_query line differs');
});
