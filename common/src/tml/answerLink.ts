/**
 * The link between a `.tsq` file and the saved Answer its query came from: an `@answer 'GUID'` line
 * beside `@datasource` (the lexer reads it as trivia, common/src/language/lexer.ts), so the link is in
 * the file and survives Git; and the conversions between an Answer TML (docs/service-interface.md §11.1)
 * and a `.tsq` file.
 */
import { isMap, stringify } from 'yaml';
import { readBoundedYaml, TML_LIMITS } from './boundedYaml';
import { isRecord, recordOr } from '../guards';

const LINK = /^[ \t]*@answer[ \t]+'([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})'[ \t]*(?:--.*)?$/m;

/** The GUID of the file's `@answer 'GUID'` line and its 0-based line, or undefined when there is none. */
export function answerLinkOf(text: string): { guid: string; line: number } | undefined {
  const m = LINK.exec(text);
  if (!m) return undefined;
  return { guid: m[1]!.toLowerCase(), line: text.slice(0, m.index).split('\n').length - 1 };
}

/** The text with its `@answer` line set to `guid`: replaced where there is one, else added as the first line. */
export function withAnswerLink(text: string, guid: string): string {
  const line = `@answer '${guid}'`;
  return LINK.test(text) ? text.replace(LINK, line) : `${line}\n${text}`;
}

/** What an Answer TML says of its query: GUID, name, data source (fqn or name of `tables[0]`), and the query. */
export interface AnswerQuery {
  guid?: string;
  name: string;
  dataSource: string;
  query: string;
}

/**
 * Reads an Answer TML text (YAML or JSON) into its query.
 * @throws Error saying what is missing when the text is not an Answer TML with name, tables and search_query,
 *   or which limit of the TML reader (boundedYaml.ts `TML_LIMITS`) it is over
 */
export function answerQueryOf(tml: string): AnswerQuery {
  const { doc, exceeded } = readBoundedYaml(tml);
  if (exceeded) throw new Error(`Not read: the Answer TML has ${exceeded.message}.`);
  if (doc.errors.length) throw new Error(`Not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const root = doc.toJS({ maxAliasCount: TML_LIMITS.aliases }) as { guid?: unknown; answer?: { name?: unknown; tables?: { fqn?: unknown; name?: unknown; id?: unknown }[]; search_query?: unknown } };
  if (!isMap(doc.contents) || !root.answer) throw new Error('Not an Answer TML: the member answer is missing.');
  const a = root.answer;
  const t = Array.isArray(a.tables) ? a.tables[0] : undefined;
  const dataSource = [t?.name, t?.id, t?.fqn].find((x): x is string => typeof x === 'string' && x !== '');
  if (typeof a.name !== 'string' || !dataSource || typeof a.search_query !== 'string') throw new Error('The Answer TML needs answer.name, answer.tables and answer.search_query.');
  return { ...(typeof root.guid === 'string' ? { guid: root.guid } : {}), name: a.name, dataSource, query: a.search_query };
}

/** A `.tsq` file of an answer's query: `@answer` (when it has a GUID), `@datasource`, the query. */
export function tsqOfAnswer(a: AnswerQuery): string {
  const ds = a.dataSource.includes("'") ? a.dataSource.replace(/'/g, '') : a.dataSource;
  return `${a.guid ? `@answer '${a.guid}'\n` : ''}@datasource '${ds}'\n${a.query.trim()}\n`;
}

/**
 * The members of `answer` the service derives from the search itself on an import (the columns of the
 * answer follow from its `search_query`): an update does not send them, and the Update Answer diff leaves
 * them out of both sides (`keptAnswerTml`), so that it shows only what the import changes.
 */
export const DERIVED_ANSWER_MEMBERS = ['answer_columns'] as const;

/** `doc` with the members of DERIVED_ANSWER_MEMBERS removed from its `answer`, written as `answerTmlOf` writes. */
function withoutDerived(doc: Record<string, unknown>): string {
  const answer = { ...recordOr(doc.answer) };
  for (const m of DERIVED_ANSWER_MEMBERS) delete answer[m];
  return stringify({ ...doc, answer }, { lineWidth: 0 });
}

/**
 * The exported Answer TML `edoc` as the service keeps it on an update: without the members it derives
 * again (DERIVED_ANSWER_MEMBERS), written as `answerTmlOf` writes, so that a diff against `answerTmlOf(…,
 * edoc)` shows only what the update changes. @throws Error when `edoc` is not YAML of a map, or is over a
 * limit of the TML reader (boundedYaml.ts `TML_LIMITS`)
 */
export function keptAnswerTml(edoc: string): string {
  const { doc: read, exceeded } = readBoundedYaml(edoc);
  if (exceeded) throw new Error(`Not read: the Answer TML has ${exceeded.message}.`);
  const doc: unknown = read.toJS({ maxAliasCount: TML_LIMITS.aliases });
  if (!isRecord(doc)) throw new Error('Not an Answer TML: the document is not a map.');
  return withoutDerived(doc);
}

/**
 * The Answer TML (YAML) of a query: the members an import needs (docs/service-interface.md §11.1).
 * With `base` (the answer's exported TML) the other members (description, chart, table, display_mode…)
 * are kept and only name, tables and search_query change.
 * @throws Error when `base` is over a limit of the TML reader (boundedYaml.ts `TML_LIMITS`)
 */
export function answerTmlOf(a: AnswerQuery, base?: string): string {
  const read = base ? readBoundedYaml(base) : undefined;
  if (read?.exceeded) throw new Error(`Not read: the Answer TML has ${read.exceeded.message}.`);
  const doc = read ? recordOr(read.doc.toJS({ maxAliasCount: TML_LIMITS.aliases })) : {};
  const answer = { ...recordOr(doc.answer) };
  answer.name = a.name;
  answer.tables = [{ id: a.dataSource, name: a.dataSource }];
  answer.search_query = a.query.trim();
  return withoutDerived({ ...(a.guid ? { guid: a.guid } : {}), answer });
}

/**
 * The two sides of the Update Answer diff of the saved answer `edoc` (its exported YAML) with the query
 * `a`: `saved`, the export as the service keeps it (`keptAnswerTml`), and `next`, the TML the update
 * imports (`answerTmlOf` over `edoc`). Neither holds what the service derives again
 * (DERIVED_ANSWER_MEMBERS), so an unchanged query gives two equal sides.
 * @throws Error when `edoc` is not YAML of a map
 */
export function answerUpdateOf(edoc: string, a: AnswerQuery): { saved: string; next: string } {
  return { saved: keptAnswerTml(edoc), next: answerTmlOf(a, edoc) };
}
