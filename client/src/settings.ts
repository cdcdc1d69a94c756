/**
 * The one place the extension reads its `tsq.*` settings (package.json `contributes.configuration`),
 * each as a typed value with its default and bounds. Connections and the active connection have their
 * own module (connectionSettings.ts), because the trust rules apply to where they come from.
 */
import * as vscode from 'vscode';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../../common/src/api';

/** `tsq.results.*`: rows of an answer kept (`maxRows`, ≥ 1), rows per searchdata page (`pageSize`, 1–100,000), CSV formula guard. */
export interface ResultsSettings {
  maxRows: number;
  pageSize: number;
  csvInjectionProtection: boolean;
}

/** `tsq.objects.*`: how the Objects view lists object headers (seed §4.2 metadata/listobjectheaders). */
export interface ObjectsSettings {
  sort: string;
  sortAscending: boolean;
  category: string;
  /** Headers per page (`batchsize`), a positive integer. */
  batchSize: number;
}

/** A finite number ≥ `min`, else `fallback`. */
function num(v: unknown, fallback: number, min = 0): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
}

/** `tsq.results.*` (defaults: 100,000 rows, pages of 10,000, CSV injection protection on). */
export function resultsSettings(): ResultsSettings {
  const c = vscode.workspace.getConfiguration('tsq.results');
  return {
    maxRows: Math.max(1, Math.floor(num(c.get('maxRows'), 100_000, 1))),
    pageSize: Math.min(100_000, Math.max(1, Math.floor(num(c.get('pageSize'), 10_000, 1)))),
    csvInjectionProtection: c.get<boolean>('csvInjectionProtection', true) !== false,
  };
}

/**
 * `tsq.results.location` (declared in package.json): `panel`, the TSQ Results view in the bottom panel
 * (the default), or `beside`, a results editor tab beside the query.
 */
export function resultsLocation(): 'panel' | 'beside' {
  return vscode.workspace.getConfiguration('tsq.results').get<string>('location') === 'beside' ? 'beside' : 'panel';
}

/** `tsq.defaultDataSource`: the data source of a query with no `@datasource` line, or null. */
export function defaultDataSource(): string | null {
  const v = vscode.workspace.getConfiguration('tsq').get<string>('defaultDataSource');
  return typeof v === 'string' && v.trim() ? v : null;
}

/** `tsq.objects.*` (defaults: by NAME ascending, category ALL, 50 per page). */
export function objectsSettings(): ObjectsSettings {
  const c = vscode.workspace.getConfiguration('tsq.objects');
  const batch = c.get<number>('batchSize');
  return {
    sort: c.get<string>('sort') ?? 'NAME',
    sortAscending: c.get<boolean>('sortAscending') ?? true,
    category: c.get<string>('category') ?? 'ALL',
    batchSize: typeof batch === 'number' && Number.isInteger(batch) && batch > 0 ? batch : 50,
  };
}

/** `tsq.load.chunkSize`: bytes of CSV per Load request, or `fallback` when unset or not a positive number. */
export function loadChunkBytes(fallback: number): number {
  return num(vscode.workspace.getConfiguration('tsq').get('load.chunkSize'), fallback, 1);
}

/** `tsq.http.*` deadlines in seconds (0: none), each falling back to `DEFAULT_HTTP_TIMEOUTS`. */
export function httpDeadlines(): Pick<HttpTimeouts, 'connect' | 'metadata' | 'query' | 'upload'> {
  const c = vscode.workspace.getConfiguration('tsq.http');
  return {
    connect: num(c.get('connectTimeout'), DEFAULT_HTTP_TIMEOUTS.connect),
    metadata: num(c.get('metadataTimeout'), DEFAULT_HTTP_TIMEOUTS.metadata),
    query: num(c.get('queryTimeout'), DEFAULT_HTTP_TIMEOUTS.query),
    upload: num(c.get('uploadTimeout'), DEFAULT_HTTP_TIMEOUTS.upload),
  };
}
