/**
 * Preview Data: the first `PREVIEW_ROWS` rows of every column of a table, view or worksheet, through
 * searchdata: which data source a command argument names, and the query text of its columns. The run
 * goes through the results controller (index.ts `showOne`) as any query.
 */
import * as vscode from 'vscode';
import type { Column } from '../../../common/src/model';
import type { DocumentQuery } from '../../../common/src/protocol';
import { previewQuery } from '../../../common/src/language/queryText';
import type { TsqClient } from '../context';
import type { ObjectNode } from '../tree/nodes';
import type { RunSummary } from './run';

export { PREVIEW_ROWS } from '../../../common/src/language/queryText';

/**
 * A query of the results controller not read from a document; with `answerId` (`preview`), its text,
 * until then the tab's title, is that saved answer's search (the data source's preview, `previewText`).
 */
export type ShownQuery = DocumentQuery & { answerId?: string; preview?: boolean };

/** Runs a `ShownQuery` into the results panel `key` titled `title` (index.ts `showOne`); never throws. */
export type ShowOne = (key: string, title: string, q: ShownQuery, started: number) => Promise<RunSummary>;

/** A data source to preview: a table, view or worksheet node of the Objects view, or its name and, when known, GUID (a finished load's Show Data). */
export type PreviewTarget = ObjectNode | { id?: string; name: string };

/**
 * The data source `target` names: `id` is its GUID, or its name when only the name is known (the
 * query's data source is then resolved by name); undefined when it names none (not a LOGICAL_TABLE
 * node, no name, or a tree row whose element VS Code dropped).
 */
export function previewSource(target: unknown): { id: string; name: string } | undefined {
  if (!target || typeof target !== 'object') return undefined;
  const t = target as Partial<Extract<PreviewTarget, { kind: string }>> & { id?: unknown; name?: unknown };
  if ('kind' in t) return t.kind === 'object' && t.type === 'LOGICAL_TABLE' && t.header ? { id: t.header.id, name: t.header.name } : undefined;
  if (typeof t.name !== 'string' || !t.name) return undefined;
  return { id: typeof t.id === 'string' && t.id ? t.id : t.name, name: t.name };
}

/**
 * The query of the preview of data source `ds` (common/src/language/queryText.ts `previewQuery`): every
 * column a query can name; the names left out are logged through `info`.
 * @throws Error when the columns are unknown or none can be named (the tab shows it).
 */
export function previewText(ds: { name: string; columns?: Column[] }, info: (line: string) => void): string {
  if (!ds.columns) throw new Error(`The columns of ${ds.name} could not be read: run TSQ: Refresh Catalog and try again.`);
  const { query, skipped } = previewQuery(ds.columns);
  if (skipped.length) info(`Preview Data of ${ds.name} leaves out ${skipped.length} column(s) a query cannot name: ${skipped.map((n) => JSON.stringify(n)).join(', ')}`);
  return query;
}

/**
 * TSQ: Preview Data on `target`: its preview in the data source's own panel (`preview:<id>`), recorded in
 * the History like any run. Never throws: a failure shows in the tab; a target naming no data source
 * gives a warning and undefined.
 */
export async function previewData(client: Pick<TsqClient, 'log' | 'history' | 'connections'>, showOne: ShowOne, target: unknown): Promise<RunSummary | undefined> {
  const started = Date.now();
  const ds = previewSource(target);
  if (!ds) {
    client.log.warn(`Preview Data: not a table, view or worksheet: ${JSON.stringify(target)?.slice(0, 300)}`);
    void vscode.window.showWarningMessage('TSQ: Preview Data works on a table, view or worksheet in the Objects view.');
    return undefined;
  }
  client.log.info(`Preview Data: ${ds.name}`);
  const q: ShownQuery = { text: ds.name, dataSource: ds.id, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, preview: true };
  const s = await showOne(`preview:${ds.id}`, `Preview: ${ds.name}`, q, started);
  client.history?.record({ query: q.text, dataSource: ds.name, connection: client.connections.getState().name, startedAt: started, rows: s.rows, durationMs: s.elapsedMs, outcome: s.cancelled ? 'cancelled' : s.error ? 'error' : 'ok', ...(s.error ? { error: s.error } : {}) });
  return s;
}
