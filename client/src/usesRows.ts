/**
 * The rows of the Uses view (uses.ts), without `vscode`: the nodes built from a `tsq/uses` answer (the
 * workspace's uses grouped by file, in the server's order, then the service's group) and from the
 * service's dependents (`columnDependents`, common/src/catalog/dependents.ts), and what each row shows
 * (label, description, icon, what opening it runs). uses.ts turns a row into a TreeItem.
 */
import type { UseLocation, UsesAnswer } from '../../common/src/protocol';
import type { DependentObject, MetadataType } from '../../common/src/api';
import { DEPENDENT_TYPE_LABELS, type ColumnDependents } from '../../common/src/catalog/dependents';
import { namedObjectNode, type ObjectNode } from './tree/nodes';

/** A node of the Uses view. `dependents` undefined: the service's answer is on its way. */
export type UsesNode =
  | { kind: 'file'; uri: string; uses: UseLocation[] }
  | { kind: 'use'; use: UseLocation; text: string }
  | { kind: 'service'; dependents: DependentObject[] | undefined; note?: string }
  | { kind: 'dependent'; dependent: DependentObject }
  | { kind: 'message'; text: string };

/** What one row shows: a plain description of a TreeItem (codicon ids, 0-based ranges). */
export interface UsesRow {
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id; a file's row has none (its icon is its resource's). */
  icon?: string;
  /** The file a row stands for (its URI, as the server wrote it). */
  resourceUri?: string;
  collapsible: 'none' | 'expanded';
  /** A use's row opens its file with the use selected. */
  open?: UseLocation;
  /** A dependent's row runs the command the Objects view offers for its kind, on its node. */
  command?: { command: string; arguments: [ObjectNode] };
  contextValue?: string;
}

/** The icon of each v1 dependent type, and the command (with the Objects view's node type) that opens one. */
const DEPENDENT_OPENERS: Readonly<Record<string, { icon: string; open: string; type: MetadataType }>> = {
  QUESTION_ANSWER_BOOK: { icon: 'comment-discussion', open: 'tsq.openAnswerAsQuery', type: 'QUESTION_ANSWER_BOOK' },
  PINBOARD_ANSWER_BOOK: { icon: 'dashboard', open: 'tsq.showData', type: 'PINBOARD_ANSWER_BOOK' },
  LOGICAL_TABLE: { icon: 'table', open: 'tsq.newQueryOnDataSource', type: 'LOGICAL_TABLE' },
};

/** What the view shows before TSQ: Show Uses has run. */
export const USES_HINT = 'Run TSQ: Show Uses on a column of a .tsq or TML file.';
/** The label of the service's group. */
export const SERVICE_LABEL = 'On the service';
/** The service group's note when the service may hold more dependents than it gave (a bounded answer). */
export const MORE_NOTE = 'the first ones only: there may be more';

/** `n thing` or `n things`. */
const count = (n: number, thing: string): string => `${n} ${thing}${n === 1 ? '' : 's'}`;

/** The view's description of the column shown: `[column] of data source`. */
export function shownColumn(answer: UsesAnswer): string {
  return `[${answer.column}] of ${answer.dataSource}`;
}

/** The workspace's uses by file, in the server's order; a message row when no file uses the column. */
export function fileNodes(answer: UsesAnswer): UsesNode[] {
  const byFile = new Map<string, UseLocation[]>();
  for (const l of answer.locations) {
    const uses = byFile.get(l.uri);
    if (uses) uses.push(l);
    else byFile.set(l.uri, [l]);
  }
  if (!byFile.size) return [{ kind: 'message', text: `No file of the workspace uses [${answer.column}].` }];
  return [...byFile].map(([uri, uses]) => ({ kind: 'file', uri, uses }));
}

/** A file's uses, each labelled with the trimmed text of its line (`lineText` '' when the file cannot be read). */
export function useNodes(node: Extract<UsesNode, { kind: 'file' }>, lineText: (line: number) => string): UsesNode[] {
  return node.uses.map((use) => ({ kind: 'use', use, text: lineText(use.range.start.line).trim() }));
}

/**
 * The service's group from what `columnDependents` found for `answer`'s column: null (no such data
 * source) is a note; the data source's dependents when the service lists no such column, and a bounded
 * answer (`complete` false), each say so in the note.
 */
export function serviceNode(answer: UsesAnswer, found: ColumnDependents | null): Extract<UsesNode, { kind: 'service' }> {
  if (!found) return { kind: 'service', dependents: [], note: `no data source ${answer.dataSource}` };
  const notes = [
    found.of === 'dataSource' ? `of the data source ${found.dataSource.name}: the service lists no column [${answer.column}]` : undefined,
    found.complete ? undefined : MORE_NOTE,
  ].filter((n) => n !== undefined);
  return { kind: 'service', dependents: found.objects, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/** The children of a node: a file's uses (`lineText` reads its lines), the service's dependents; none for the rest. */
export function childrenOf(node: UsesNode, lineText: (line: number) => string): UsesNode[] {
  if (node.kind === 'file') return useNodes(node, lineText);
  if (node.kind === 'service') return (node.dependents ?? []).map((dependent) => ({ kind: 'dependent', dependent }));
  return [];
}

/** The last segment of a URI's path, decoded (what VS Code shows as a file's label). */
function baseName(uri: string): string {
  const path = uri.split(/[?#]/)[0] ?? uri;
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** What a node's row shows. */
export function rowOf(node: UsesNode): UsesRow {
  switch (node.kind) {
    case 'file':
      return { label: baseName(node.uri), resourceUri: node.uri, description: count(node.uses.length, 'use'), collapsible: 'expanded', contextValue: 'tsqUsesFile' };
    case 'use': {
      const at = `${node.use.range.start.line + 1}:${node.use.range.start.character + 1}`;
      return { label: node.text || at, description: at, collapsible: 'none', open: node.use };
    }
    case 'service': {
      const n = node.dependents?.length;
      const description = [n === undefined ? undefined : count(n, 'dependent'), node.note].filter(Boolean).join(', ');
      return { label: n === undefined ? `${SERVICE_LABEL}…` : SERVICE_LABEL, description, icon: 'cloud', collapsible: n ? 'expanded' : 'none' };
    }
    case 'dependent': {
      const d = node.dependent;
      const label = DEPENDENT_TYPE_LABELS[d.type] ?? d.type;
      const opener = DEPENDENT_OPENERS[d.type];
      return {
        label: d.name,
        description: label,
        tooltip: `${label} ${d.name} (${d.id})`,
        icon: opener?.icon ?? 'symbol-misc',
        collapsible: 'none',
        ...(opener ? { command: { command: opener.open, arguments: [namedObjectNode(opener.type, d)] } } : {}),
      };
    }
    case 'message':
      return { label: node.text, collapsible: 'none' };
  }
}
