/**
 * searchdata execution: parses a query string with the language service's parser, compiles it to
 * DuckDB SQL (compile.ts), runs one page of it and shapes the result (docs/service-interface.md §2.5, docs/service-notes.md §1.2-1.4).
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { parseQuery } from '../../../common/src/language/parser';
import type { MetadataStore, LogicalTable } from '../metadataStore';
import type { Engine } from '../engine';
import { engineQueryFailure } from '../errors';
import { compileSearch, type CompiledQuery, QueryError, type SqlParam } from './compile';

/** Most rows one call returns (docs/service-notes.md §1.2). */
export const MAX_ROWS = 100_000;

/** Paging and format parameters of searchdata and pinboarddata (docs/service-interface.md §4.2; -1 = unset). */
export interface PageRequest {
  batchsize: number;
  pagenumber: number;
  offset: number;
  formattype: 'COMPACT' | 'FULL';
}

/** The search data result (docs/service-interface.md §2.5). FULL rows are objects keyed by column name, nulls left out. */
export interface SearchResult {
  columnNames: string[];
  data: unknown[][] | Record<string, unknown>[];
  samplingRatio: number;
  totalRowCount: number;
  rowCount: number;
  pageSize: number;
  offset: number;
}

/**
 * The page a request asks for: `pageSize` is the batch size (100,000 when -1, capped at 100,000);
 * `pagenumber` (1-based) wins over `offset`; `offset` is 0-based with -1 meaning the start (docs/service-notes.md §1.4).
 * Throws `QueryError` for pagenumber 0 or other negative values.
 */
export function pageOf(req: PageRequest): { pageSize: number; offset: number } {
  const { batchsize, pagenumber, offset } = req;
  if (!Number.isInteger(batchsize) || (batchsize < 1 && batchsize !== -1)) throw new QueryError(`batchsize must be a positive integer or -1, not ${batchsize}`);
  if (!Number.isInteger(pagenumber) || (pagenumber < 1 && pagenumber !== -1)) throw new QueryError(`pagenumber must be 1 or more, or -1, not ${pagenumber}`);
  if (!Number.isInteger(offset) || offset < -1) throw new QueryError(`offset must be 0 or more, or -1, not ${offset}`);
  const pageSize = batchsize === -1 ? MAX_ROWS : Math.min(batchsize, MAX_ROWS);
  if (pagenumber >= 1) return { pageSize, offset: (pagenumber - 1) * pageSize };
  return { pageSize, offset: offset === -1 ? 0 : offset };
}

function toJsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  if (v !== null && typeof v === 'object') return String(v);
  return v;
}

/** Most rows of one answer kept for paging (larger answers are paged by running the query per page). */
export const ANSWER_CACHE_ROWS = 200_000;
/** Most answers kept for paging (least recently used dropped first). */
export const ANSWER_CACHE_SIZE = 8;

/** An answer kept for paging: all its rows (at most `ANSWER_CACHE_ROWS`), or null when it has more. */
interface CachedAnswer {
  tableId: string;
  rows: Promise<unknown[][] | null>;
}

/**
 * Runs search queries against the emulator's data sources, with prepared statements cached per SQL and
 * answers kept for paging: when the first page of an answer is full, the whole answer is read once (in
 * the background, up to `ANSWER_CACHE_ROWS` rows) and the following pages are slices of it rather than
 * runs of the query. An answer is keyed by data source, query (and the minute, for relative dates) and
 * the table's data version; a load that commits (`invalidate`) drops its table's answers.
 */
export class SearchService {
  private readonly compiled = new Map<string, CompiledQuery>();
  private readonly answers = new Map<string, CachedAnswer>();
  /** Data version per table: bumped by `invalidate`, part of an answer's key. */
  private readonly versions = new Map<string, number>();

  constructor(
    readonly engine: Engine,
    readonly catalog: MetadataStore,
    readonly now: () => Date,
  ) {}

  /** Drops whatever is cached for a table (called after a load commits). */
  invalidate(tableId: string): void {
    this.compiled.clear();
    dropPreparedStatements();
    this.versions.set(tableId, (this.versions.get(tableId) ?? 0) + 1);
    for (const [key, a] of this.answers) if (a.tableId === tableId) this.answers.delete(key);
  }

  /** How many answers are kept for paging (for tests). */
  get cachedAnswers(): number {
    return this.answers.size;
  }

  /**
   * Parses and compiles a query over a data source. Throws `QueryError` (a 400) for a syntax error, an
   * unknown column or a keyword the emulator does not execute.
   */
  compile(ds: LogicalTable, query: string): CompiledQuery {
    const nowMs = this.now().getTime();
    // Relative dates depend on the clock: cache per data source, query and minute.
    const key = `${ds.id}\u0000${Math.floor(nowMs / 60_000)}\u0000${query}`;
    const hit = this.compiled.get(key);
    if (hit) return hit;
    const { query: q, diagnostics } = parseQuery(query);
    const err = diagnostics.find((d) => d.severity === 'error');
    if (err) throw new QueryError(`Syntax error at character ${err.start + 1}: ${err.message}`);
    if (!q || q.clauses.length === 0) throw new QueryError('The query is empty');
    const compiled = compileSearch({ clauses: q.clauses, columns: ds.columns, table: ds.sqlName, now: new Date(nowMs) });
    if (this.compiled.size > 500) this.compiled.clear();
    this.compiled.set(key, compiled);
    return compiled;
  }

  /** Runs a query over a data source and returns one page (docs/service-interface.md §2.5). Throws `QueryError` for a bad query or page. */
  async search(ds: LogicalTable, query: string, req: PageRequest): Promise<SearchResult> {
    const compiled = this.compile(ds, query);
    const { pageSize, offset } = pageOf(req);
    const key = `${ds.tableId}\u0000${this.versions.get(ds.tableId) ?? 0}\u0000${ds.id}\u0000${Math.floor(this.now().getTime() / 60_000)}\u0000${query}`;
    const kept = this.answers.get(key);
    const all = kept ? await kept.rows.catch(() => null) : null;
    let rows: unknown[][];
    let total: number;
    if (all) {
      this.answers.delete(key); // most recently used last
      this.answers.set(key, kept!);
      rows = all.slice(offset, offset + pageSize);
      total = all.length;
    } else {
      // One page without a window count; the total is then known unless the page is full or empty past
      // the start, in which case a count of the whole result follows (docs/service-notes.md §1.4 totalRowCount).
      ({ rows, total } = await this.engine
        .withConnection(async (c) => {
          const page = await runPrepared(c, compiled.pageSql, [...compiled.params, pageSize, offset]);
          if ((page.length > 0 || offset === 0) && page.length < pageSize) return { rows: page, total: offset + page.length };
          const r = await runPrepared(c, compiled.countSql, compiled.params);
          return { rows: page, total: Number(r[0]![0]) };
        })
        .catch((e: Error) => {
          // A value DuckDB cannot convert (a TIME text, an out-of-range number) is the query's fault: 400.
          // The engine's text goes to the incident log only (emulator/src/errors.ts), never into the response.
          if (/^(Conversion|Invalid Input|Out of Range) Error/.test(e.message)) throw engineQueryFailure(e.message);
          throw e;
        }));
      // More pages will follow: read the whole answer once, for them to slice.
      if (!kept && offset + rows.length < total && total <= ANSWER_CACHE_ROWS) this.keep(key, ds.tableId, compiled);
    }
    const n = compiled.columnNames.length;
    let data: unknown[][] | Record<string, unknown>[];
    if (req.formattype === 'FULL') {
      data = rows.map((r) => {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const v = toJsonValue(r[i]);
          if (v !== null && v !== undefined) o[compiled.columnNames[i]!] = v;
        }
        return o;
      });
    } else {
      data = rows.map((r) => {
        const out = new Array<unknown>(n);
        for (let i = 0; i < n; i++) out[i] = toJsonValue(r[i]);
        return out;
      });
    }
    return { columnNames: compiled.columnNames, data, samplingRatio: 1, totalRowCount: total, rowCount: rows.length, pageSize, offset };
  }

  private keep(key: string, tableId: string, compiled: CompiledQuery): void {
    keepAnswer(this.answers, this.engine, key, tableId, compiled);
  }
}

/** Reads a whole answer in the background and keeps it under `key` (see `SearchService`). */
function keepAnswer(answers: Map<string, CachedAnswer>, engine: Engine, key: string, tableId: string, compiled: CompiledQuery): void {
  const rows = engine.withConnection(async (c) => {
    const r = await runPrepared(c, compiled.pageSql, [...compiled.params, ANSWER_CACHE_ROWS + 1, 0]);
    return r.length > ANSWER_CACHE_ROWS ? null : r;
  });
  const entry: CachedAnswer = { tableId, rows };
  answers.set(key, entry);
  // A failed or oversized read is forgotten: the pages are then run one by one.
  rows.then((r) => { if (!r && answers.get(key) === entry) answers.delete(key); }, () => { if (answers.get(key) === entry) answers.delete(key); });
  while (answers.size > ANSWER_CACHE_SIZE) answers.delete(answers.keys().next().value!);
}

/** Prepared statements kept per connection, keyed by SQL text (planning is a good part of a small query's time). */
const statements = new WeakMap<DuckDBConnection, { generation: number; map: Map<string, DuckDBPreparedStatement> }>();
let generation = 0;

/** Forgets every cached prepared statement (after a table changed shape or was replaced). */
export function dropPreparedStatements(): void {
  generation++;
}

/** Prepares (binding values as parameters, never as text) and runs a statement; returns its rows. */
export async function runPrepared(c: DuckDBConnection, sql: string, params: SqlParam[]): Promise<unknown[][]> {
  let entry = statements.get(c);
  if (!entry || entry.generation !== generation) statements.set(c, (entry = { generation, map: new Map() }));
  const cache = entry.map;
  let stmt: DuckDBPreparedStatement | undefined = cache.get(sql);
  if (!stmt) {
    stmt = await c.prepare(sql);
    if (cache.size >= 200) cache.clear();
    cache.set(sql, stmt);
  } else stmt.clearBindings();
  params.forEach((p, i) => {
    if (typeof p === 'number') {
      if (Number.isInteger(p) && Math.abs(p) < 2 ** 53) stmt.bindBigInt(i + 1, BigInt(p));
      else stmt.bindDouble(i + 1, p);
    } else if (typeof p === 'boolean') stmt.bindBoolean(i + 1, p);
    else stmt.bindVarchar(i + 1, p);
  });
  const reader = await stmt!.runAndReadAll();
  return reader.getRows() as unknown[][];
}
