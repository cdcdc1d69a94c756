/**
 * Hover for `.tsq` documents: a column shows its data type, kind (attribute or measure), data
 * source and description; a keyword or operator its meaning and an example (docs/service-notes.md section 2);
 * `@datasource` the data source's LOGICAL_TABLE subtype and GUID.
 *
 * Reads the document's cached tokens (one binary search), never lexes the document again.
 *
 * Pure: no `vscode`, no connection, no network, no `fs`.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver-types';
import { columnMarkdown, findColumn, keywordMarkdown } from './completion';
import { findKeyword } from '../language/keywords';
import type { Token } from '../language/lexer';
import { dataSourceAt } from '../language/parser';
import type { CancellationLike, LanguageSettings, ServiceContext } from './types';

/**
 * Hover at a position.
 *
 * @param settings `defaultDataSource` applies to queries with no `@datasource` before them.
 * @param token cancellation: when requested (before or after a catalog call) the answer is null.
 * @returns markdown contents and the range of the hovered token (a whole `[column]`, a whole multi-word
 *   keyword, the `@datasource` line), or null on whitespace, values, numbers and comments. A column is
 *   looked up in the data source in force; when the catalog is unknown the hover says so rather than
 *   guessing. Never throws.
 */
export async function doHover(ctx: ServiceContext, document: TextDocument, position: Position, settings: LanguageSettings, token?: CancellationLike): Promise<Hover | null> {
  if (token?.isCancellationRequested) return null;
  const offset = document.offsetAt(position);
  const t = tokenUnder(ctx.tokens(document), offset);
  if (!t) return null;
  const range = { start: document.positionAt(t.start), end: document.positionAt(t.end) };
  const hover = (value: string): Hover => ({ contents: { kind: MarkupKind.Markdown, value }, range });

  switch (t.kind) {
    case 'keyword':
    case 'operator':
    case 'constant': {
      const info = findKeyword(t.kind === 'constant' ? `{${t.value}}` : t.value);
      return info ? hover(keywordMarkdown(info)) : null;
    }
    case 'column': {
      const dataSource = dataSourceAt(ctx.parse(document), offset) || settings.defaultDataSource?.trim() || undefined;
      if (!dataSource) return hover(`**[${t.value}]**\n\nNo data source: add a line \`@datasource 'name'\` above the query or set \`tsq.defaultDataSource\`.`);
      if (!ctx.catalog) return hover(`**[${t.value}]**\n\nData source: **${dataSource}** (not connected: the column's details are unknown).`);
      const columns = await ctx.catalog.getColumns(dataSource, token);
      if (token?.isCancellationRequested) return null;
      if (columns === undefined) return hover(`**[${t.value}]**\n\nData source: **${dataSource}** (its columns are unknown right now).`);
      if (columns === null) return hover(`**[${t.value}]**\n\nThe data source **${dataSource}** does not exist on this connection.`);
      const column = findColumn(columns, t.value);
      if (!column) return hover(`**[${t.value}]** is not a column of **${columns.name}**.`);
      return hover(columnMarkdown(column, columns.name));
    }
    case 'directive':
      return hover(await directiveMarkdown(ctx, t, token));
    default:
      return null;
  }
}

/** The token whose characters include `offset` (start inclusive, end exclusive); blank runs and comments excluded. */
function tokenUnder(tokens: readonly Token[], offset: number): Token | undefined {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid]!.end <= offset) lo = mid + 1;
    else hi = mid;
  }
  const t = tokens[lo];
  return t && t.start <= offset && offset < t.end && t.kind !== 'blank' && t.kind !== 'comment' ? t : undefined;
}

async function directiveMarkdown(ctx: ServiceContext, t: Token, token?: CancellationLike): Promise<string> {
  const name = t.value;
  const head = "**@datasource** — the data source of every following query, until the next `@datasource`.";
  if (!name) return `${head}\n\nNo data source is named: write \`@datasource 'name or GUID'\`.`;
  if (!ctx.catalog) return `${head}\n\n**${name}** (not connected: its type and GUID are unknown).`;
  const sources = await ctx.catalog.getDataSources(token);
  if (!sources) return `${head}\n\n**${name}** (the data sources are unknown right now).`;
  const key = name.toLowerCase();
  const source = sources.find((s) => s.id.toLowerCase() === key) ?? sources.find((s) => s.name.toLowerCase() === key);
  if (!source) return `${head}\n\nThere is no data source named **${name}** on this connection.`;
  return `${head}\n\n**${source.name}**\n\nType: ${source.type}\n\nGUID: \`${source.id}\``;
}
