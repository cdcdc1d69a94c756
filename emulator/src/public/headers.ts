/**
 * `GET metadata/listobjectheaders` (docs/service-interface.md §4.2, docs/service-notes.md §3.1): a bare
 * JSON array of the headers of one type that the user may read, filtered, sorted and paged.
 * - `type` defaults to LOGICAL_TABLE; an unknown type is 500 "Invalid metadata type", an unknown subtype
 *   400 "Invalid metadata subtype", as the service answers.
 * - `owner` is the object itself at top level, the table of a LOGICAL_COLUMN, the answer or pinboard of
 *   a visualization. `category` MY = authored by the user; FAVORITE and REQUESTED are always empty.
 * - `pattern`: case-insensitive match of the whole name, `%` any run, `_` one character, in time bounded
 *   by name length × pattern length (NamePattern); over 1024 characters: 400.
 * - `sort`: DEFAULT keeps catalog order; `sortascending` defaults to true.
 */
import type { FastifyRequest } from 'fastify';
import type { MetadataStore } from '../metadataStore';
import { ApiError, badRequest } from '../errors';
import { stableGuid } from '../guid';
import { objectHeader, userOf } from './params';
import { bool, formValues, int, str, stringList } from '../requestValues';

const TYPES = ['QUESTION_ANSWER_BOOK', 'PINBOARD_ANSWER_BOOK', 'QUESTION_ANSWER_SHEET', 'PINBOARD_ANSWER_SHEET', 'LOGICAL_COLUMN', 'LOGICAL_TABLE', 'LOGICAL_RELATIONSHIP', 'TAG', 'DATA_SOURCE', 'USER', 'USER_GROUP'];
const TABLE_SUBTYPES = ['ONE_TO_ONE_LOGICAL', 'WORKSHEET', 'PRIVATE_WORKSHEET', 'USER_DEFINED', 'AGGR_WORKSHEET', 'SQL_VIEW'];
const COLUMN_SUBTYPES = ['FORMULA', 'CALENDAR_TYPE', 'CALENDAR_TABLE'];

interface Row {
  header: Record<string, unknown> & { id: string; name: string; author: string; created: number; modified: number; isAutoCreated: boolean };
  subtype?: string;
  tags: string[];
}

/** Longest `pattern` accepted, in characters; a longer one answers 400 before any matching. */
export const MAX_PATTERN_LENGTH = 1024;

/**
 * A compiled `pattern` of listobjectheaders: `%` any run of characters, `_` exactly one, every other
 * character itself, case-insensitively, against the whole name (module comment). Matching never
 * backtracks across a `%`: the pattern is cut at its `%`s into segments; the first must match at the
 * start, the last at the end, and each one between at its leftmost place after the previous one (the
 * leftmost place is always a right choice, as a later place leaves less text for the rest). Each segment
 * search looks at each start position once, so a match costs at most (name length × pattern length)
 * character comparisons, whatever the pattern, where a backtracking regular expression can take
 * exponential time (`%_%_%_…!`). Characters are compared as code points after `toLowerCase()`.
 */
export class NamePattern {
  private readonly segments: string[][];
  /** Character comparisons made so far by `test` (for the complexity test and the benchmark). */
  comparisons = 0;

  /** @throws ApiError 400 when the pattern is longer than MAX_PATTERN_LENGTH. */
  constructor(pattern: string) {
    if (pattern.length > MAX_PATTERN_LENGTH) throw badRequest(`Invalid value for pattern: longer than ${MAX_PATTERN_LENGTH} characters`);
    const parts = pattern.toLowerCase().split('%');
    this.segments = parts.map((p) => Array.from(p));
  }

  /** True when the whole `name` matches. */
  test(name: string): boolean {
    const text = Array.from(name.toLowerCase());
    const segs = this.segments;
    if (segs.length === 1) return text.length === segs[0]!.length && this.matchesAt(text, segs[0]!, 0);
    const first = segs[0]!;
    const last = segs[segs.length - 1]!;
    if (first.length + last.length > text.length) return false;
    if (!this.matchesAt(text, first, 0)) return false;
    const end = text.length - last.length;
    if (!this.matchesAt(text, last, end)) return false;
    let pos = first.length;
    for (let i = 1; i < segs.length - 1; i++) {
      const seg = segs[i]!;
      const at = this.find(text, seg, pos, end);
      if (at < 0) return false;
      pos = at + seg.length;
    }
    return true;
  }

  /** True when `seg` matches `text` at `at` (`_` matches any one character). */
  private matchesAt(text: string[], seg: string[], at: number): boolean {
    for (let j = 0; j < seg.length; j++) {
      this.comparisons++;
      const c = seg[j]!;
      if (c !== '_' && c !== text[at + j]) return false;
    }
    return true;
  }

  /** The leftmost start in [from, end - seg.length] where `seg` matches, or -1. */
  private find(text: string[], seg: string[], from: number, end: number): number {
    for (let at = from; at + seg.length <= end; at++) if (this.matchesAt(text, seg, at)) return at;
    return -1;
  }
}

/**
 * The subtypes that filter a type: subtypes apply only to LOGICAL_TABLE (and LOGICAL_COLUMN,
 * LOGICAL_RELATIONSHIP) and are ignored for other types, as the documentation's own example request
 * `type=PINBOARD_ANSWER_BOOK&subtypes=WORKSHEET&category=ALL&sort=CREATED&offset=-1` expects
 * (https://developers.thoughtspot.com/docs/metadata-api).
 */
function subtypesFor(type: string, subtypes: string[] | undefined): string[] | undefined {
  return type === 'LOGICAL_TABLE' || type === 'LOGICAL_COLUMN' || type === 'LOGICAL_RELATIONSHIP' ? subtypes : undefined;
}

/** Lists object headers for the request's user (see the module comment). */
export function listObjectHeaders(req: FastifyRequest, catalog: MetadataStore): Record<string, unknown>[] {
  const user = userOf(req);
  const type = (str(formValues(req), 'type') ?? 'LOGICAL_TABLE').toUpperCase();
  if (!TYPES.includes(type)) throw new ApiError(500, 'Invalid metadata type', [`Unknown type ${type}`]);
  const subtypes = subtypesFor(type, stringList(formValues(req), 'subtypes')?.map((s) => s.toUpperCase()));
  if (subtypes) {
    const allowed = type === 'LOGICAL_TABLE' ? TABLE_SUBTYPES : COLUMN_SUBTYPES;
    const bad = subtypes.find((s) => !allowed.includes(s));
    if (bad) throw badRequest('Invalid metadata subtype', `Subtype ${bad} does not apply to type ${type}`);
  }
  const category = (str(formValues(req), 'category') ?? 'ALL').toUpperCase();
  if (!['ALL', 'MY', 'FAVORITE', 'REQUESTED'].includes(category)) throw badRequest(`Invalid value for category: ${category}`);
  const sort = (str(formValues(req), 'sort') ?? 'DEFAULT').toUpperCase();
  if (!['DEFAULT', 'NAME', 'DISPLAY_NAME', 'AUTHOR', 'CREATED', 'MODIFIED'].includes(sort)) throw badRequest(`Invalid value for sort: ${sort}`);
  const ascending = bool(formValues(req), 'sortascending', true);
  const offset = int(formValues(req), 'offset', -1);
  const batchsize = int(formValues(req), 'batchsize', -1);
  if (offset < -1) throw badRequest(`Invalid value for offset: ${offset}`);
  if (batchsize < -1 || batchsize === 0) throw badRequest(`Invalid value for batchsize: ${batchsize}`);
  const tagNames = stringList(formValues(req), 'tagname')?.map((t) => t.toLowerCase());
  const pattern = str(formValues(req), 'pattern');
  const skip = new Set(stringList(formValues(req), 'skipids')?.map((s) => s.toLowerCase()) ?? []);
  const fetch = stringList(formValues(req), 'fetchids')?.map((s) => s.toLowerCase());
  const autoCreated = bool(formValues(req), 'auto_created');

  const st = catalog.state;
  let rows: Row[] = [];
  switch (type) {
    case 'LOGICAL_TABLE':
      rows = st.tables.filter((t) => catalog.canRead(user, t)).map((t) => ({ header: objectHeader(t) as Row['header'], subtype: t.subtype, tags: t.tags }));
      break;
    case 'LOGICAL_COLUMN':
      for (const t of st.tables.filter((x) => catalog.canRead(user, x)))
        for (const c of t.columns)
          rows.push({ header: { ...(objectHeader({ ...t, id: c.id, name: c.name, description: c.description }, t.id) as Row['header']) }, tags: [] });
      break;
    case 'QUESTION_ANSWER_BOOK':
    case 'PINBOARD_ANSWER_BOOK':
      rows = st.books.filter((b) => b.type === type && catalog.canRead(user, b)).map((b) => ({ header: objectHeader(b) as Row['header'], tags: b.tags }));
      break;
    case 'QUESTION_ANSWER_SHEET':
    case 'PINBOARD_ANSWER_SHEET': {
      const bookType = type === 'QUESTION_ANSWER_SHEET' ? 'QUESTION_ANSWER_BOOK' : 'PINBOARD_ANSWER_BOOK';
      for (const b of st.books.filter((x) => x.type === bookType && catalog.canRead(user, x)))
        for (const v of b.visualizations) rows.push({ header: objectHeader({ ...b, id: v.id, name: v.name, description: undefined }, b.id) as Row['header'], tags: [] });
      break;
    }
    case 'TAG':
      rows = catalog.tagsIn(user.orgId).map((t) => ({ header: objectHeader(t) as Row['header'], tags: [] }));
      break;
    case 'DATA_SOURCE': {
      const dbs = [...new Set(st.tables.filter((t) => catalog.canRead(user, t)).map((t) => t.database))];
      const admin = st.users[0]!;
      rows = dbs.map((db) => {
        const id = stableGuid('datasource', db);
        const first = st.tables.find((t) => t.database === db)!;
        return { header: objectHeader({ id, name: db, author: first.author ?? admin.id, created: first.created, modified: first.modified, modifiedBy: first.modifiedBy, tags: [], sharedWith: [], isAutoCreated: false }) as Row['header'], tags: [] };
      });
      break;
    }
    case 'USER':
      rows = catalog.usersIn(user.orgId).map((u) => ({ header: { id: u.id, name: u.name, displayName: u.displayName, author: u.id, created: u.created, modified: u.modified, modifiedBy: u.id, owner: u.id, isAutoCreated: false, isAutoDelete: false }, tags: [] }));
      break;
    case 'USER_GROUP':
      rows = catalog.groupsIn(user.orgId).map((g) => ({ header: { id: g.id, name: g.name, displayName: g.displayName, author: st.users[0]?.id ?? g.id, created: g.created, modified: g.modified, modifiedBy: st.users[0]?.id ?? g.id, owner: g.id, isAutoCreated: false, isAutoDelete: false }, tags: [] }));
      break;
    case 'LOGICAL_RELATIONSHIP':
      rows = [];
      break;
  }

  if (subtypes) rows = rows.filter((r) => r.subtype !== undefined && subtypes.includes(r.subtype));
  if (category === 'MY') rows = rows.filter((r) => r.header.author === user.id);
  else if (category === 'FAVORITE' || category === 'REQUESTED') rows = [];
  if (tagNames) {
    const ids = new Set(catalog.tagsIn(user.orgId).filter((t) => tagNames.includes(t.name.toLowerCase())).map((t) => t.id));
    rows = rows.filter((r) => r.tags.some((t) => ids.has(t)));
  }
  if (pattern !== undefined) {
    const matcher = new NamePattern(pattern);
    rows = rows.filter((r) => matcher.test(r.header.name));
  }
  if (skip.size) rows = rows.filter((r) => !skip.has(r.header.id));
  if (fetch) rows = rows.filter((r) => fetch.includes(r.header.id));
  if (autoCreated !== undefined) rows = rows.filter((r) => r.header.isAutoCreated === autoCreated);

  if (sort !== 'DEFAULT') {
    const authorName = (id: string): string => catalog.storedUser(id)?.name ?? '';
    const key = (r: Row): string | number =>
      sort === 'CREATED' ? r.header.created : sort === 'MODIFIED' ? r.header.modified : sort === 'AUTHOR' ? authorName(r.header.author).toLowerCase() : r.header.name.toLowerCase();
    rows = [...rows].sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const c = ka < kb ? -1 : ka > kb ? 1 : a.header.name.localeCompare(b.header.name);
      return ascending ? c : -c;
    });
  } else if (!ascending) rows = [...rows].reverse();

  const start = offset === -1 ? 0 : offset;
  const end = batchsize === -1 ? undefined : start + batchsize;
  return rows.slice(start, end).map((r) => r.header);
}
