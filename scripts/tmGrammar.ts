/**
 * The TextMate grammar of `.tsq` files (syntaxes/tsq.tmLanguage.json), generated from the keyword catalogue
 * (common/src/language/keywords.ts) so that the editor's colours know exactly the keywords the lexer knows.
 *
 *   node --import tsx scripts/tmGrammar.ts          writes syntaxes/tsq.tmLanguage.json
 *
 * test/grammar/grammar.test.ts fails when the checked-in file differs from `tmGrammar()`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEYWORDS, type KeywordCategory } from '../common/src/language/keywords';
import { DIRECTIVES } from '../common/src/language/lexer';

/** The scope of each category's words (symbols and `{null}`/`{empty}` have rules of their own). */
const SCOPES: [KeywordCategory[], string, string][] = [
  [['aggregation'], 'support.function.aggregation.tsq', 'aggregation'],
  [['text'], 'keyword.operator.word.text.tsq', 'text'],
  [['in'], 'keyword.operator.word.in.tsq', 'in'],
  [['comparison'], 'keyword.operator.word.tsq', 'comparison'],
  [['bucket', 'period'], 'support.constant.bucket.tsq', 'bucket'],
  [['date'], 'keyword.other.date.tsq', 'date'],
  [['general', 'filter'], 'keyword.control.tsq', 'general'],
  [['dateUnit'], 'keyword.other.unit.tsq', 'dateUnit'],
  [['dateName'], 'constant.language.date-name.tsq', 'dateName'],
  [['location'], 'keyword.other.location.tsq', 'location'],
];

/** A word-bounded, case-insensitive alternation of spellings, longest first (words of a phrase separated by any whitespace). */
function alternation(spellings: string[]): string {
  const sorted = [...new Set(spellings)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return `(?i)(?<![\\w-])(?:${sorted.map((s) => s.split(' ').join('\\s+')).join('|')})(?![\\w-])`;
}

/** The keyword rules: every phrase of several words first (so `day of week` wins over `day`), then single words. */
function keywordPatterns(): { name: string; match: string; comment: string }[] {
  const multi: { name: string; match: string; comment: string }[] = [];
  const single: { name: string; match: string; comment: string }[] = [];
  for (const [categories, scope, label] of SCOPES) {
    const spellings = KEYWORDS.filter((k) => categories.includes(k.category)).flatMap((k) => [k.name, ...(k.aliases ?? [])]).filter((s) => /^[a-z]/.test(s));
    const m = spellings.filter((s) => s.includes(' '));
    const w = spellings.filter((s) => !s.includes(' '));
    if (m.length) multi.push({ name: scope, match: alternation(m), comment: `${label} (multi-word)` });
    if (w.length) single.push({ name: scope, match: alternation(w), comment: label });
  }
  return [...multi, ...single];
}

/** The whole grammar, as JSON text (two-space indent, final newline). */
export function tmGrammar(): string {
  const grammar = {
    $schema: 'https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json',
    name: 'TSQ',
    scopeName: 'source.tsq',
    fileTypes: ['tsq'],
    patterns: ['comment', 'directive', 'column', 'calendar', 'string', 'constant', 'number', 'operator', 'punctuation', 'keyword'].map((r) => ({ include: `#${r}` })),
    repository: {
      comment: { match: '(--).*$', name: 'comment.line.double-dash.tsq', captures: { 1: { name: 'punctuation.definition.comment.tsq' } } },
      directive: {
        patterns: [
          ...DIRECTIVES.map((d) => ({
            begin: `(?i)(@)(${d})(?![\\w-])`,
            beginCaptures: { 0: { name: `keyword.control.directive.${d}.tsq` }, 1: { name: 'punctuation.definition.directive.tsq' } },
            end: '$',
            name: `meta.directive.${d}.tsq`,
            patterns: [{ include: '#comment' }, { include: '#string' }],
          })),
          { match: '@[\\w-]*', name: 'invalid.illegal.directive.tsq' },
        ],
      },
      column: {
        patterns: [
          {
            match: "(\\[)([^\\[\\]\\n]*)(\\])(?:(\\.)(?:([A-Za-z_][\\w-]*)|(')([^'\\n]*)(')))?",
            name: 'meta.column.tsq',
            captures: {
              1: { name: 'punctuation.definition.column.begin.tsq' },
              2: { name: 'variable.other.column.tsq' },
              3: { name: 'punctuation.definition.column.end.tsq' },
              4: { name: 'punctuation.accessor.bucket.tsq' },
              5: { name: 'support.constant.bucket.tsq' },
              6: { name: 'punctuation.definition.bucket.begin.tsq' },
              7: { name: 'support.constant.bucket.tsq' },
              8: { name: 'punctuation.definition.bucket.end.tsq' },
            },
          },
          {
            match: '(\\[)([^\\[\\]\\n]*?)(?=\\s*(?:--|$))',
            name: 'invalid.illegal.unterminated-column.tsq',
            captures: { 1: { name: 'punctuation.definition.column.begin.tsq' } },
          },
        ],
      },
      calendar: {
        match: "(?i)(?<![\\w-])(calendar)(\\.)(?:([A-Za-z_][\\w-]*)|(')([^'\\n]*)('))",
        name: 'meta.calendar.tsq',
        captures: {
          1: { name: 'keyword.other.calendar.tsq' },
          2: { name: 'punctuation.accessor.calendar.tsq' },
          3: { name: 'entity.name.type.calendar.tsq' },
          4: { name: 'punctuation.definition.string.begin.tsq' },
          5: { name: 'entity.name.type.calendar.tsq' },
          6: { name: 'punctuation.definition.string.end.tsq' },
        },
      },
      string: {
        patterns: [
          {
            match: "(')([^'\\n]*)(')",
            name: 'string.quoted.single.tsq',
            captures: { 1: { name: 'punctuation.definition.string.begin.tsq' }, 3: { name: 'punctuation.definition.string.end.tsq' } },
          },
          { match: "(')[^'\\n]*$", name: 'invalid.illegal.unterminated-string.tsq', captures: { 1: { name: 'punctuation.definition.string.begin.tsq' } } },
        ],
      },
      constant: { match: '(?i)\\{(?:null|empty)\\}', name: 'constant.language.tsq' },
      number: { match: '(?<![\\w.\\]-])-?\\d+(?:\\.\\d+)?(?![\\w.])', name: 'constant.numeric.tsq' },
      operator: { match: '!=|>=|<=|=|<|>', name: 'keyword.operator.comparison.tsq' },
      punctuation: {
        patterns: [
          { match: ';', name: 'punctuation.terminator.query.tsq' },
          { match: ',', name: 'punctuation.separator.value.tsq' },
          { match: '\\(', name: 'punctuation.section.parens.begin.tsq' },
          { match: '\\)', name: 'punctuation.section.parens.end.tsq' },
        ],
      },
      keyword: { patterns: keywordPatterns() },
    },
  };
  return JSON.stringify(grammar, null, 2) + '\n';
}

/** The checked-in grammar's path. */
export const GRAMMAR_PATH = join(__dirname, '..', 'syntaxes', 'tsq.tmLanguage.json');

if (require.main === module) writeFileSync(GRAMMAR_PATH, tmGrammar());
