/**
 * `tsq objects`: object headers of `metadata/listobjectheaders` (docs/service-interface.md §4.2) as a
 * text table or JSON. LOGICAL_TABLE headers carry no subtype (docs/service-notes.md §3.1), so without
 * `--subtype` they are listed one data-source subtype at a time to show each one's.
 */
import type { AnalyticsServiceClient, MetadataType, ObjectHeader } from '../../common/src/api';
import { DATA_SOURCE_SUBTYPES } from '../../common/src/catalog';
import { textTable, write } from './output';
import { choices } from './optionValues';
import { memberOf } from '../../common/src/guards';

/** The metadata types `--type` accepts (docs/service-interface.md §4.2, USER and USER_GROUP from docs/service-notes.md §3.1). */
export const OBJECT_TYPES: readonly MetadataType[] = [
  'LOGICAL_TABLE',
  'LOGICAL_COLUMN',
  'QUESTION_ANSWER_BOOK',
  'PINBOARD_ANSWER_BOOK',
  'QUESTION_ANSWER_SHEET',
  'PINBOARD_ANSWER_SHEET',
  'LOGICAL_RELATIONSHIP',
  'TAG',
  'DATA_SOURCE',
  'USER',
  'USER_GROUP',
];

/** The `--category` choices of `tsq objects` (metadata/list `category`). */
export const OBJECT_CATEGORIES = choices('ALL', 'MY', 'FAVORITE');

/** The `--format` choices of `tsq objects` and `tsq orgs`. */
export const LIST_FORMATS = choices('table', 'json');

/** Options of `tsq objects`. */
export interface ObjectsOptions {
  type: MetadataType;
  subtype?: string[];
  pattern?: string;
  category?: (typeof OBJECT_CATEGORIES)[number];
  format: (typeof LIST_FORMATS)[number];
  signal: AbortSignal;
}

/** Lists the headers and writes them to stdout. Returns how many. */
export async function runObjectsCommand(client: AnalyticsServiceClient, opts: ObjectsOptions): Promise<number> {
  const list = (subtypes?: string[]) =>
    client.listObjectHeaders({ type: opts.type, subtypes, pattern: opts.pattern, category: opts.category, batchSize: -1, sort: 'NAME', sortAscending: true }, { signal: opts.signal });
  let rows: (ObjectHeader & { subtype?: string })[];
  if (opts.type === 'LOGICAL_TABLE' && !opts.subtype?.length) {
    const pages = await Promise.all(
      DATA_SOURCE_SUBTYPES.map(async (subtype) => {
        try {
          return (await list([subtype])).map((h) => ({ ...h, subtype }));
        } catch (e) {
          const status = memberOf(e, 'status');
          if (subtype === 'SQL_VIEW' && (status === 400 || status === 500)) return [];
          throw e;
        }
      }),
    );
    rows = pages.flat().sort((a, b) => a.name.localeCompare(b.name));
  } else {
    rows = (await list(opts.subtype)).map((h) => (opts.subtype?.length === 1 ? { ...h, subtype: opts.subtype[0] } : h));
  }
  if (opts.format === 'json') {
    await write(process.stdout, `${JSON.stringify(rows, null, 2)}\n`);
  } else {
    const showSubtype = rows.some((r) => r.subtype);
    const header = ['NAME', ...(showSubtype ? ['SUBTYPE'] : []), 'ID', 'AUTHOR', 'MODIFIED'];
    const date = (ms: unknown) => (typeof ms === 'number' && ms > 0 ? new Date(ms).toISOString().slice(0, 10) : '');
    const author = (h: ObjectHeader) => String(memberOf(h, 'authorName') ?? memberOf(h, 'authorDisplayName') ?? h.author ?? '');
    await write(process.stdout, textTable(header, rows.map((r) => [r.name, ...(showSubtype ? [r.subtype ?? ''] : []), r.id, author(r), date(r.modified)])));
  }
  return rows.length;
}
