/**
 * The workspace of the navigation protocol tests (navigation.test.ts, navigation-tml.test.ts): several
 * `.tsq` files, an exported Answer TML, a Liveboard TML and a model TML, where the columns `revenue` and
 * `region` of `Retail Sales` are used in many files, in both query forms (`[region] = 'west'` is written
 * `[region].west` in TML strings too), and `Marketing` has columns of the same names. The expected
 * locations are computed from these texts (`uses`, `retailUses`), never written out by hand.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Location, Range, TextEdit } from 'vscode-languageserver-types';
import { catalogFromRows, makeCatalogProvider } from '../fixtures/catalogs';
import { LspClient, positionAt } from './lspClient';

export const GUID = '0b5e1c2a-7f3d-4e6a-9c1b-2d3e4f5a6b7c';
export const RETAIL = `@datasource 'Retail Sales'\n[revenue] [region] -- [revenue] in a comment\n\nsum [revenue] by [region].west\n\n[region].east [Retail Sales::revenue] > 100 sort by [revenue]\n\n`;
export const MARKETING = `@datasource 'Marketing'\n[revenue] [campaign]\n`;
export const FILES: Record<string, string> = {
  'queries/a.tsq': RETAIL + MARKETING,
  'queries/b.tsq': `@datasource 'Retail Sales'\ntop 5 [region] ranked by sum [revenue]\n`,
  'queries/by-guid.tsq': `@datasource '${GUID}'\n[revenue] [cost]\n`,
  'answers/revenue.answer.tml': `guid: null\n# the answer of [revenue] by [region]\nanswer:\n  name: Revenue by region\n  tables:\n  - id: Retail Sales\n    name: Retail Sales\n    fqn: ${GUID}\n  search_query: "[revenue] [region] [Retail Sales::revenue] > 5 [region].west"\n  display_mode: TABLE_MODE\n`,
  'boards/overview.liveboard.tml': `guid: null\nliveboard:\n  name: Overview\n  visualizations:\n  - id: Viz_1\n    answer:\n      name: Retail\n      tables:\n      - id: Retail Sales\n        name: Retail Sales\n      search_query: '[region] sum [revenue] [region].east'\n  - id: Viz_2\n    answer:\n      name: Campaigns\n      tables:\n      - id: Marketing\n        name: Marketing\n      search_query: "[campaign] [revenue] [region].north"\n`,
  'models/retail.model.tml': `guid: ${GUID}\nmodel:\n  name: Retail Sales\n  columns:\n  - name: revenue\n    column_id: sales::revenue\n    properties:\n      column_type: MEASURE\n      aggregation: SUM\n  - name: region\n    column_id: sales::region\n    properties:\n      column_type: ATTRIBUTE\n  - name: cost\n    column_id: sales::cost\n`,
};

/**
 * Every `[...]` reference of `column` in the text `text` from `from` to `to` (a `.tsq` text or a TML
 * one), `[column]`, `[path::column]` and the token form `[column].value` alike, outside comments
 * (`--` in a query, `#` in YAML): the range of the name.
 */
export function uses(text: string, column: string, from = 0, to = text.length): Range[] {
  const out: Range[] = [];
  const re = new RegExp(`\\[(?:[^\\]\\[]*::)?(${column})\\]`, 'g');
  for (const m of text.slice(0, to).matchAll(re)) {
    const at = m.index + m[0].indexOf(`${column}]`);
    const lineStart = text.lastIndexOf('\n', at) + 1;
    if (at < from || /--|#/.test(text.slice(lineStart, at))) continue;
    out.push({ start: positionAt(text, at), end: positionAt(text, at + column.length) });
  }
  return out;
}

export const key = (l: Location): string => `${l.uri}:${l.range.start.line}:${l.range.start.character}:${l.range.end.line}:${l.range.end.character}`;
export const sorted = (ls: Location[] | null): string[] => (ls ?? []).map(key).sort();

/** A workspace folder with FILES (and `extra`) written, and the server started on it over stdio. */
export async function start(extra: Record<string, string> = {}, settings?: Record<string, unknown>): Promise<{ client: LspClient; dir: string; uri: (f: string) => string; capabilities: Record<string, unknown> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-nav-'));
  for (const [f, text] of Object.entries({ ...FILES, ...extra })) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  const catalog = makeCatalogProvider([
    { ...catalogFromRows('Retail Sales', [{ revenue: 1.5, region: 'west', cost: 2.5 }]), id: GUID },
    catalogFromRows('Marketing', [{ revenue: 3.5, campaign: 'spring', region: 'north' }]),
  ]);
  const { client, capabilities } = await LspClient.start({ catalog, workspaceFolders: [pathToFileURL(dir).href], ...(settings ? { settings } : {}) });
  return { client, dir, capabilities, uri: (f) => pathToFileURL(join(dir, f)).href };
}

/**
 * Runs `body` on a server started by `start(extra, settings)`, then stops the server and removes its
 * workspace folder, whether `body` passed or threw.
 */
export async function withWorkspace(body: (ws: Awaited<ReturnType<typeof start>>) => Promise<void>, extra: Record<string, string> = {}, settings?: Record<string, unknown>): Promise<void> {
  const ws = await start(extra, settings);
  try {
    await body(ws);
  } finally {
    await ws.client.stop();
    rmSync(ws.dir, { recursive: true, force: true });
  }
}

/** Where each file's Retail Sales part ends (the rest is Marketing's). */
export function retailEnd(f: string): number {
  const text = FILES[f]!;
  if (f === 'queries/a.tsq') return RETAIL.length;
  if (f.endsWith('.liveboard.tml')) return text.indexOf('Viz_2');
  return f.endsWith('.model.tml') ? 0 : text.length;
}

/** Every location of Retail Sales' `column` in FILES, the model's declaration aside. */
export function retailUses(uri: (f: string) => string, column: string): Location[] {
  return Object.keys(FILES).flatMap((f) => uses(FILES[f]!, column, 0, retailEnd(f)).map((range) => ({ uri: uri(f), range })));
}

/** Every location of Marketing's `column` in FILES (no file declares Marketing). */
export function marketingUses(uri: (f: string) => string, column: string): Location[] {
  return Object.keys(FILES).flatMap((f) => (f.endsWith('.model.tml') ? [] : uses(FILES[f]!, column, retailEnd(f)).map((range) => ({ uri: uri(f), range }))));
}

/** Every location of Retail Sales' `revenue` in FILES, declaration aside. */
export function retailRevenue(uri: (f: string) => string): Location[] {
  return retailUses(uri, 'revenue');
}

/** The declaration of Retail Sales' `column` in the model TML. */
export function declaration(uri: (f: string) => string, column: string): Location {
  const text = FILES['models/retail.model.tml']!;
  const at = text.indexOf(`- name: ${column}\n`) + '- name: '.length;
  return { uri: uri('models/retail.model.tml'), range: { start: positionAt(text, at), end: positionAt(text, at + column.length) } };
}

/** The location of `name` where it first follows `before` in the file `f` of FILES. */
export function nameAfter(uri: (f: string) => string, f: string, before: string, name: string): Location {
  const text = FILES[f]!;
  const at = text.indexOf(before + name);
  if (at < 0) throw new Error(`${JSON.stringify(before + name)} not in ${f}`);
  return { uri: uri(f), range: { start: positionAt(text, at + before.length), end: positionAt(text, at + before.length + name.length) } };
}

/** Applies LSP edits to a text. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'tsq', 1, text), edits);
}

/** The ranges of a list of locations grouped by URI, each file's in order. */
export function byUri(locations: Location[]): Map<string, Range[]> {
  const out = new Map<string, Range[]>();
  for (const l of locations) out.set(l.uri, [...(out.get(l.uri) ?? []), l.range]);
  for (const ranges of out.values()) ranges.sort((x, y) => x.start.line - y.start.line || x.start.character - y.start.character);
  return out;
}
