/**
 * The resource `tsq://language-reference`: the TSQ search language for a model, in Markdown, generated
 * from the keyword catalogue that completion and hover read (common/src/language/keywords.ts), so that it
 * can never disagree with what the editor offers. The rules are those of the `.tsq` file in the design
 * notes and of the lexer and parser (common/src/language).
 */
import { BOOLEAN_VALUES, DATE_BUCKETS, KEYWORDS, TABLE_PATH_SEPARATOR, type KeywordCategory } from '../language/keywords';
import { tokenForm } from '../tml/tokenForm';

/** The URI of the resource. */
export const LANGUAGE_REFERENCE_URI = 'tsq://language-reference';

/** The catalogue's categories in the order they are shown, with a heading each. */
const SECTIONS: [KeywordCategory, string][] = [
  ['general', 'Ranking, sorting and grouping'],
  ['aggregation', 'Aggregations'],
  ['filter', 'Filters on aggregates'],
  ['comparison', 'Comparisons'],
  ['constant', 'Constants'],
  ['text', 'Text operators (text columns only)'],
  ['date', 'Dates (date columns only)'],
  ['dateUnit', 'Date units'],
  ['bucket', 'Date buckets'],
  ['period', 'Date parts'],
  ['dateName', 'Named days, months and quarters'],
  ['in', 'Subsearches'],
  ['location', 'Locations'],
];

/** The rule line naming the keywords the local emulator does not execute (keywords.ts `emulator`), none when it runs them all. */
function notInEmulatorRule(): string[] {
  const names = KEYWORDS.filter((k) => k.emulator === 'unsupported').map((k) => `\`${k.name}\``);
  return names.length ? [`- The local emulator does not execute ${names.join(', ')}: against it such a query gets a 400 naming the keyword (a real service runs it).`] : [];
}

/** Escapes the characters that end a Markdown table cell. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The language reference as Markdown: rules, date buckets, then every keyword of the catalogue by
 * category with its meaning and an example query.
 */
export function languageReference(): string {
  const out: string[] = [
    '# TSQ search language',
    '',
    'A TSQ query is a search, not SQL: a list of columns, keywords, operators and values that the Analytics Service turns into an answer. There is no SELECT, FROM, WHERE or GROUP BY.',
    '',
    '## Rules',
    '',
    '- A column is written in square brackets with its exact name: `[origin]`. `describe_data_source` lists the names. A name cannot hold `[` or `]`.',
    "- A value is written in single quotes: `[origin] = 'SEA'`. A value cannot hold a quote. Several values: `[origin] = 'SEA', 'PDX'`. Numbers are bare: `[distance] > 1000`.",
    '- ATTRIBUTE columns group the answer; MEASURE columns are aggregated by their default aggregation (usually sum) unless an aggregation keyword names another: `average [delay] [origin]`.',
    "- A date bucket follows a date column after a dot: `[date].monthly`; a bucket of several words is quoted: `[date].'day of week'`.",
    '- A custom calendar: `calendar.name`. Keywords are English (en-US) and case-insensitive.',
    ...tokenFormRules(),
    "- A date keyword after a column that is no date applies to the data source's date column: `[delay] last 7 days`, `[delay] today by [origin]`. With several date columns it applies to the first; name the date column to choose: `[delay] [date] last 7 days`.",
    "- The location keywords (`near`, `farther than`) need a data source with numeric `latitude` and `longitude` columns and follow the column the place is a value of: `[name] [city] near 'seattle' within 50 miles`.",
    ...notInEmulatorRule(),
    '- Formulas cannot be defined in a query; only the data source\'s own formula columns can be used.',
    '- In a `.tsq` file, `@datasource \'name\'` picks the data source and a query ends at `;`, a blank line or the end of the file; `--` starts a comment. The agent tools take the data source as an argument and one query as text.',
    '- Check a query with `check_query` before `run_query`: an unknown column comes back with the closest names as suggestions.',
    '',
    '## Date buckets',
    '',
    DATE_BUCKETS.map((b) => (b.includes(' ') ? `\`[date].'${b}'\`` : `\`[date].${b}\``)).join(', '),
    '',
    '## Keywords',
  ];
  for (const [category, heading] of SECTIONS) {
    const entries = KEYWORDS.filter((k) => k.category === category);
    if (!entries.length) continue;
    out.push('', `### ${heading}`, '', '| keyword | meaning | example |', '|---|---|---|');
    for (const k of entries) out.push(`| \`${cell([k.name, ...(k.aliases ?? [])].join('`, `'))}\` | ${cell(k.meaning)} | \`${cell(k.example)}\`${k.dataSource ? ` (on ${k.dataSource})` : ''} |`);
  }
  out.push(
    ...tokenFormSection(),
    '',
    '## Examples',
    '',
    '- `[origin] [delay] top 10 sort by [delay] descending` — the ten origins with the most delay.',
    '- `[date].monthly [distance]` — distance per month.',
    "- `[date].'day of week' average [delay] [origin] = 'SEA', 'PDX'` — average delay by weekday for two origins.",
    '- `[origin] [delay] for sum [delay] > 5000` — origins whose total delay is above 5000.',
    '',
  );
  return out.join('\n');
}

/**
 * The token form, as ThoughtSpot writes queries itself (exported TML's `search_query`, Spotter's `sage_query`;
 * docs/service-notes.md §2.11): the same language, read by the same parser, so a query copied from
 * ThoughtSpot runs as it is. The words come from the catalogue's lists (booleans, the table path separator).
 */
function tokenFormRules(): string[] {
  const [SEA, LOS_ANGELES] = ["[origin] = 'SEA'", "[destination] = 'los angeles'"];
  return [
    `- ThoughtSpot itself writes filters as tokens after the column's dot, and TSQ reads them as the same filters: ${[SEA, LOS_ANGELES].map((q) => `\`${tokenForm(q)}\` is \`${q}\``).join(', ')} (one plain word bare, other text quoted, a number, ${BOOLEAN_VALUES.map((b) => `\`${b}\``).join(' or ')}, \`{null}\`, \`{empty}\`); after \`=\` or \`!=\` several such tokens are a list of values; a relative date is quoted after the dot. The section "The token form" shows the catalogue's examples as ThoughtSpot writes them.`,
    `- After the dot, a bucket word on a date column is a bucket (\`[date].monthly\`), anything else a value of the column; a word that is neither is an error. ${BOOLEAN_VALUES.map((b) => `\`${b}\``).join('/')} need no quotes on a BOOL column (\`[is delayed] = ${BOOLEAN_VALUES[0]}\`).`,
    `- A column may carry its table path: \`[flights_1${TABLE_PATH_SEPARATOR}origin]\` is the column origin of that path (on a data source without paths, the column of that name). Commas may separate tokens (\`by [origin], [destination]\`); \`top 20 [origin] ranked by count [destination]\` ranks by an aggregate; \`sort by [date] [date].daily descending\` sorts by the bucketed column.`,
  ];
}

/** The column the catalogue's examples filter by date: the demo data sources' date column. */
const EXAMPLE_DATE_COLUMN = { name: 'date', dataType: 'DATE' } as const;
/** Most examples of one category in the token form section. */
const TOKEN_FORM_EXAMPLES_PER_CATEGORY = 3;

/**
 * The catalogue's examples that ThoughtSpot writes otherwise, each as typed and as written by the token
 * form's writer (common/src/tml/tokenForm.ts, the one `tsq tml export` from the emulator uses).
 */
export function tokenFormExamples(): { typed: string; written: string }[] {
  const out: { typed: string; written: string }[] = [];
  const perCategory = new Map<string, number>();
  // one example of each shape: `[date].'monday'` stands for `[date].'tuesday'` too
  const shapes = new Set<string>();
  for (const k of KEYWORDS) {
    const written = tokenForm(k.example, [EXAMPLE_DATE_COLUMN]);
    const shape = written.replace(/[\p{L}\p{N}]+/gu, 'x');
    const n = perCategory.get(k.category) ?? 0;
    if (written === k.example.trim() || n >= TOKEN_FORM_EXAMPLES_PER_CATEGORY || shapes.has(shape)) continue;
    perCategory.set(k.category, n + 1);
    shapes.add(shape);
    out.push({ typed: k.example, written });
  }
  return out;
}

/** The token form section: the catalogue's examples as ThoughtSpot writes them. */
function tokenFormSection(): string[] {
  return [
    '',
    '## The token form',
    '',
    `How ThoughtSpot writes a search it exports (an Answer TML's \`search_query\`), for the catalogue's examples that it writes otherwise (on a data source whose date column is \`[${EXAMPLE_DATE_COLUMN.name}]\`). Both forms read the same; either may be written.`,
    '',
    '| as typed | as ThoughtSpot writes it |',
    '|---|---|',
    ...tokenFormExamples().map((e) => `| \`${cell(e.typed)}\` | \`${cell(e.written)}\` |`),
  ];
}
