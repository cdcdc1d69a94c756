/**
 * The nodes of the Objects view and how each one's children are fetched, without `vscode`: roots
 * (Data Sources by LOGICAL_TABLE subtype, Liveboards (the API's PINBOARD_ANSWER_BOOK), Answers, Tags, Users & Groups), object headers,
 * columns, visualizations and principals; their context flags (for menus), icons (codicon ids) and
 * tooltip lines. The provider (provider.ts) turns them into TreeItems.
 */
import type { Column } from '../../../common/src/model';
import type { ServiceCatalog } from '../../../common/src/catalog';
import type { HeaderCategory, HeaderSort, MetadataType, ObjectHeader, Principal, ServiceApi, VizHeader } from '../service';
import type { PageFetcher } from './paging';
import type { OrgRef } from '../../../common/src/api';

/** A folder of the Data Sources root: a set of LOGICAL_TABLE subtypes (docs/service-interface.md §4.2; docs/service-notes.md §3.1). */
export interface DataSourceGroup {
  id: string;
  label: string;
  subtypes: string[];
}

export const DATA_SOURCE_GROUPS: readonly DataSourceGroup[] = [
  { id: 'worksheets', label: 'Worksheets', subtypes: ['WORKSHEET'] },
  { id: 'tables', label: 'Tables', subtypes: ['ONE_TO_ONE_LOGICAL'] },
  { id: 'views', label: 'Views', subtypes: ['AGGR_WORKSHEET'] },
  { id: 'uploads', label: 'Uploaded Data', subtypes: ['USER_DEFINED'] },
];

export type RootId = 'dataSources' | 'pinboards' | 'answers' | 'tags' | 'principals' | 'orgs';

/** A node of the Objects view. `key` is unique and stable (it is the TreeItem id and the key of its list). */
export type ObjectNode =
  | { kind: 'root'; key: string; root: RootId; label: string }
  | { kind: 'group'; key: string; group: DataSourceGroup }
  | { kind: 'principalGroup'; key: string; principalKind: 'USER' | 'GROUP'; label: string }
  | { kind: 'object'; key: string; type: MetadataType; subtype?: string; header: ObjectHeader }
  | { kind: 'column'; key: string; column: Column; dataSourceId: string }
  | { kind: 'viz'; key: string; header: VizHeader; parentId: string; parentType: MetadataType }
  | { kind: 'principal'; key: string; principal: Principal }
  /** An Org of the user (the Orgs root, for a user in several); `current`: the one the connection runs in. */
  | { kind: 'org'; key: string; org: OrgRef; current: boolean };

/** The roots, in order; Users & Groups only for administrators (`user/list` answered), Orgs only for a user in several. */
export function rootNodes(isAdmin: boolean, severalOrgs = false): ObjectNode[] {
  const roots: ObjectNode[] = [
    { kind: 'root', key: 'root:dataSources', root: 'dataSources', label: 'Data Sources' },
    // Liveboards: ThoughtSpot's name since 8.4 (Pinboards before); the API keeps `pinboard` in its names
    { kind: 'root', key: 'root:pinboards', root: 'pinboards', label: 'Liveboards' },
    { kind: 'root', key: 'root:answers', root: 'answers', label: 'Answers' },
    { kind: 'root', key: 'root:tags', root: 'tags', label: 'Tags' },
  ];
  if (isAdmin) roots.push({ kind: 'root', key: 'root:principals', root: 'principals', label: 'Users & Groups' });
  // each Org's row switches the connection there (TSQ: Switch Org…, client/src/orgs.ts)
  if (severalOrgs) roots.push({ kind: 'root', key: 'root:orgs', root: 'orgs', label: 'Orgs' });
  return roots;
}

/** What the tree's object lists are asked with (settings `tsq.objects.*` and the Filter command). */
export interface ListOptions {
  sort: HeaderSort;
  sortAscending: boolean;
  category: HeaderCategory;
  /** Page size (≥ 1). */
  batchSize: number;
  /** Server-side name pattern (`%` wildcard), or undefined for none. */
  pattern?: string;
}

/**
 * A filter text as a `pattern` (docs/service-interface.md §4.2: `%` is the wildcard): kept as typed when it holds a `%`,
 * otherwise wrapped as `%text%` so that it matches anywhere in the name. Empty gives undefined.
 */
export function toPattern(text: string | undefined): string | undefined {
  const t = (text ?? '').trim();
  if (!t) return undefined;
  return t.includes('%') ? t : `%${t}%`;
}

/** True when the node has children (so it gets a list and an expand arrow). */
export function isExpandable(node: ObjectNode): boolean {
  switch (node.kind) {
    case 'root':
    case 'group':
    case 'principalGroup':
      return true;
    case 'object':
      return node.type === 'LOGICAL_TABLE' || node.type === 'PINBOARD_ANSWER_BOOK' || node.type === 'QUESTION_ANSWER_BOOK';
    default:
      return false;
  }
}

/**
 * The fetcher of a node's children. Object lists are paged (`offset`, `batchsize`; the first page
 * is asked with offset -1, docs/service-interface.md §4.2) and filtered by the pattern; columns, visualizations and
 * principals come whole (batch size -1).
 * @returns the fetcher and its batch size (-1 for unpaged).
 */
export function childrenFetcher(
  node: ObjectNode,
  api: () => Promise<ServiceApi>,
  catalog: () => Promise<ServiceCatalog>,
  options: ListOptions,
): { fetch: PageFetcher<ObjectNode>; batchSize: number } {
  const headers = (type: MetadataType, subtypes?: string[]): { fetch: PageFetcher<ObjectNode>; batchSize: number } => ({
    batchSize: options.batchSize,
    fetch: async (offset, batchSize) => {
      const list = await (await api()).listObjectHeaders({
        type,
        subtypes,
        category: options.category,
        sort: options.sort,
        sortAscending: options.sortAscending,
        offset: offset === 0 ? -1 : offset,
        batchSize,
        pattern: options.pattern,
      });
      return list.map((h) => objectNode(type, h, subtypeOf(h, subtypes)));
    },
  });
  const whole = (f: () => Promise<ObjectNode[]>) => ({ batchSize: -1, fetch: async () => f() });

  switch (node.kind) {
    case 'root':
      switch (node.root) {
        case 'dataSources':
          return whole(async () => DATA_SOURCE_GROUPS.map((group) => ({ kind: 'group', key: `group:${group.id}`, group })));
        case 'pinboards':
          return headers('PINBOARD_ANSWER_BOOK');
        case 'answers':
          return headers('QUESTION_ANSWER_BOOK');
        case 'tags':
          return headers('TAG');
        case 'principals':
          return whole(async () => [
            { kind: 'principalGroup', key: 'principals:USER', principalKind: 'USER', label: 'Users' },
            { kind: 'principalGroup', key: 'principals:GROUP', principalKind: 'GROUP', label: 'Groups' },
          ]);
        case 'orgs':
          return whole(async () => {
            const { orgs, current } = await (await api()).listOrgs();
            return orgs.map((org) => ({ kind: 'org', key: `org:${org.id}`, org, current: org.id === current?.id }));
          });
      }
      break;
    case 'group':
      return headers('LOGICAL_TABLE', node.group.subtypes);
    case 'principalGroup':
      return whole(async () =>
        (await (await api()).listPrincipals())
          .filter((p) => p.kind === node.principalKind)
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((p) => ({ kind: 'principal', key: `principal:${p.kind}:${p.id ?? p.name}`, principal: p })),
      );
    case 'object':
      if (node.type === 'LOGICAL_TABLE') {
        const id = node.header.id;
        return whole(async () => {
          const cols = await (await catalog()).columns(id);
          return (cols?.columns ?? []).map((column) => ({ kind: 'column', key: `column:${id}:${column.id ?? column.name}`, column, dataSourceId: id }));
        });
      }
      if (node.type === 'PINBOARD_ANSWER_BOOK' || node.type === 'QUESTION_ANSWER_BOOK') {
        const parentId = node.header.id;
        const parentType = node.type;
        return whole(async () => (await (await api()).listVizHeaders(parentId)).map((header) => ({ kind: 'viz', key: `viz:${parentId}:${header.id}`, header, parentId, parentType })));
      }
      break;
  }
  return whole(async () => []);
}

function subtypeOf(h: ObjectHeader, asked?: string[]): string | undefined {
  const own = h.type ?? h.subtype;
  if (typeof own === 'string' && own) return own;
  return asked?.length === 1 ? asked[0] : asked?.[0];
}

/** The node of an object header. */
export function objectNode(type: MetadataType, header: ObjectHeader, subtype?: string): ObjectNode {
  return { kind: 'object', key: `object:${type}:${header.id}`, type, subtype, header };
}

/**
 * The object node of an object known by its GUID and name only (a dependent the service listed, a run of
 * the History): the header's other members are empty (author '', times 0), as nothing reads them there.
 */
export function namedObjectNode(type: MetadataType, ref: { id: string; name: string }): ObjectNode {
  return objectNode(type, { id: ref.id, name: ref.name, author: '', created: 0, modified: 0, modifiedBy: '', owner: '', isAutoCreated: false, isAutoDelete: false });
}

/** Context flags of a node (`viewItem` in menus; matched as `/\btsq:flag\b/`). */
export function contextFlags(node: ObjectNode): string[] {
  const flags: string[] = [];
  switch (node.kind) {
    case 'root':
      flags.push('tsq:refreshable', 'tsq:root');
      break;
    case 'group':
      // a folder of data sources (not a user group: `tsq:group` is a GROUP principal)
      flags.push('tsq:refreshable', 'tsq:folder');
      break;
    case 'principalGroup':
      flags.push('tsq:refreshable', 'tsq:principalFolder');
      break;
    case 'object':
      flags.push('tsq:guid', 'tsq:name', 'tsq:object');
      if (isExpandable(node)) flags.push('tsq:refreshable');
      if (node.type === 'LOGICAL_TABLE') {
        flags.push('tsq:dataSource');
        if (node.subtype === 'ONE_TO_ONE_LOGICAL' || node.subtype === 'USER_DEFINED') flags.push('tsq:table');
        if (node.subtype === 'AGGR_WORKSHEET' || node.subtype === 'SQL_VIEW') flags.push('tsq:view');
        if (node.subtype === 'WORKSHEET') flags.push('tsq:worksheet');
      }
      if (node.type === 'PINBOARD_ANSWER_BOOK') flags.push('tsq:pinboard');
      if (node.type === 'QUESTION_ANSWER_BOOK') flags.push('tsq:answer');
      if (node.type === 'TAG') flags.push('tsq:tag');
      break;
    case 'column':
      flags.push('tsq:column', 'tsq:name');
      if (node.column.id) flags.push('tsq:guid');
      break;
    case 'viz':
      flags.push('tsq:viz', 'tsq:guid', 'tsq:name');
      if (node.parentType === 'PINBOARD_ANSWER_BOOK') flags.push('tsq:pinboardViz');
      break;
    case 'principal':
      flags.push(node.principal.kind === 'USER' ? 'tsq:user' : 'tsq:group', 'tsq:name');
      if (node.principal.id) flags.push('tsq:guid');
      break;
    case 'org':
      flags.push('tsq:org', 'tsq:name');
      break;
  }
  return flags;
}

/** The codicon of a column by data type. */
export function columnIcon(column: Column): string {
  switch (column.dataType) {
    case 'VARCHAR':
    case 'CHAR':
      return 'symbol-string';
    case 'BOOL':
      return 'symbol-boolean';
    case 'INT32':
    case 'INT64':
    case 'FLOAT':
    case 'DOUBLE':
      return 'symbol-number';
    case 'DATE':
    case 'DATE_TIME':
      return 'calendar';
    case 'TIME':
      return 'clock';
    default:
      return 'symbol-field';
  }
}

/** The codicon of a node. */
export function nodeIcon(node: ObjectNode): string {
  switch (node.kind) {
    case 'root':
      return { dataSources: 'database', pinboards: 'dashboard', answers: 'graph', tags: 'tag', principals: 'organization', orgs: 'globe' }[node.root];
    case 'group':
      return 'folder';
    case 'principalGroup':
      return node.principalKind === 'USER' ? 'person' : 'organization';
    case 'object':
      if (node.type === 'LOGICAL_TABLE') {
        return node.subtype === 'WORKSHEET' ? 'layers' : node.subtype === 'AGGR_WORKSHEET' || node.subtype === 'SQL_VIEW' ? 'eye' : node.subtype === 'USER_DEFINED' ? 'cloud-upload' : 'table';
      }
      return node.type === 'PINBOARD_ANSWER_BOOK' ? 'dashboard' : node.type === 'QUESTION_ANSWER_BOOK' ? 'graph' : node.type === 'TAG' ? 'tag' : 'symbol-object';
    case 'column':
      return columnIcon(node.column);
    case 'viz':
      return 'graph-line';
    case 'principal':
      return node.principal.kind === 'USER' ? 'person' : 'organization';
    case 'org':
      return node.current ? 'pass-filled' : 'circle-large-outline';
  }
}

/** The label of a node. */
export function nodeLabel(node: ObjectNode): string {
  switch (node.kind) {
    case 'root':
    case 'principalGroup':
      return node.label;
    case 'group':
      return node.group.label;
    case 'object':
    case 'viz':
      return node.header.name;
    case 'column':
      return node.column.name;
    case 'principal':
      return node.principal.displayName && node.principal.displayName !== node.principal.name ? `${node.principal.displayName} (${node.principal.name})` : node.principal.name;
    case 'org':
      return node.org.name;
  }
}

/** The description (greyed text after the label): `dataType · kind` for a column. */
export function nodeDescription(node: ObjectNode): string | undefined {
  if (node.kind === 'column') return `${node.column.dataType} · ${node.column.kind}`;
  if (node.kind === 'org') return node.current ? `id ${node.org.id} · current` : `id ${node.org.id}`;
  if (node.kind === 'principal' && node.principal.kind === 'USER' && node.principal.groupNames?.length) return node.principal.groupNames.join(', ');
  return undefined;
}

/** A time of the service (epoch milliseconds, docs/service-interface.md §2.4) as `YYYY-MM-DD HH:MM` UTC; undefined when absent. */
export function formatTime(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return undefined;
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/**
 * Tooltip lines `[label, value]`: author, created, modified, description, GUID (what the node has).
 * @param authorName resolves an author GUID to a name (from `user/list` when the user may read it); the GUID shows otherwise.
 */
export function tooltipLines(node: ObjectNode, authorName?: (id: string) => string | undefined): [string, string][] {
  const lines: [string, string][] = [];
  if (node.kind === 'object' || node.kind === 'viz') {
    const h = node.header;
    if (node.kind === 'object' && node.subtype) lines.push(['Type', node.subtype]);
    const named = typeof h.authorName === 'string' && h.authorName ? h.authorName : typeof h.authorDisplayName === 'string' && h.authorDisplayName ? h.authorDisplayName : undefined;
    const author = named ?? (h.author ? (authorName?.(h.author) ?? h.author) : undefined);
    if (author) lines.push(['Author', String(author)]);
    const created = formatTime(h.created);
    if (created) lines.push(['Created', created]);
    const modified = formatTime(h.modified);
    if (modified) lines.push(['Modified', modified]);
    if (h.description) lines.push(['Description', String(h.description)]);
    lines.push(['GUID', h.id]);
  } else if (node.kind === 'column') {
    lines.push(['Type', `${node.column.dataType} · ${node.column.kind}`]);
    if (node.column.description) lines.push(['Description', node.column.description]);
    if (node.column.synonyms?.length) lines.push(['Synonyms', node.column.synonyms.join(', ')]);
    if (node.column.id) lines.push(['GUID', node.column.id]);
  } else if (node.kind === 'principal') {
    lines.push(['Name', node.principal.name]);
    if (node.principal.displayName) lines.push(['Display name', node.principal.displayName]);
    if (node.principal.groupNames?.length) lines.push(['Groups', node.principal.groupNames.join(', ')]);
    if (node.principal.privileges?.length) lines.push(['Privileges', node.principal.privileges.join(', ')]);
    if (node.principal.id) lines.push(['GUID', node.principal.id]);
  }
  return lines;
}
