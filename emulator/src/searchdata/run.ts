/**
 * searchdata execution: parses a query string with the language service's parser, compiles it to
 * DuckDB SQL (compile.ts), runs one page of it and shapes the result (docs/service-interface.md §2.5, docs/service-notes.md §1.2-1.4).
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';
import { parseQuery } from '../../../common/src/language/parser';
import type { MetadataStore, LogicalTable } from '../metadataStore';
import type { Engine } from '../engine';
import { engineQueryFailure } from '../errors';
import { compileSearch, type CompiledQuery, pageParams, QueryError, type SqlParam } from './compile';
import { availableCalendars } from '../customCalendar';
import { MODEL_RELATION, modelView } from './model';

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

/** Most answers kept for paging (least recently used dropped first). */
export const ANSWER_CACHE_SIZE = 8;
/** The in-memory DuckDB database, attached to the engine's, that holds the kept answers. */
const ANSWERS_DB = 'tsq_answers';

/**
 * An answer kept for paging: its rows in order, written once into a table of `ANSWERS_DB` (a result
 * cursor: every page is a slice of that table instead of a run of the query).
 */
interface KeptAnswer {
  /** The tables whose data the answer reads (a model's: each of its tables). */
  tableIds: string[];
  /** The answer table, `tsq_answers.a<n>` (n never reused, so a cached statement never sees another answer). */
  name: string;
  /** The number of rows once the table is written; rejects when the query failed. */
  rows: Promise<number>;
}

/**
 * Runs search queries against the emulator's data sources, with prepared statements cached per SQL and
 * answers kept for paging: when the first page of an answer is not all of it, the whole answer is
 * written once (in the background, after that page is answered) into a table of an in-memory database,
 * in its order, and every later page is a slice of it: a few ms instead of a run of the whole query
 * (about a second a page for a million grouped rows). An answer is keyed by data source, query (and
 * the minute, for relative dates) and the table's data version; a load that commits (`invalidate`)
 * drops its table's answers.
 */
export class SearchService {
  private readonly compiled = new Map<string, CompiledQuery>();
  private readonly answers = new Map<string, KeptAnswer>();
  /** Data version per table: bumped by `invalidate`, part of an answer's key. */
  private readonly versions = new Map<string, number>();
  private answerSeq = 0;
  private attached: Promise<void> | undefined;

  constructor(
    readonly engine: Engine,
    readonly catalog: MetadataStore,
    readonly now: () => Date,
  ) {}

  /** Drops whatever is cached for a table (called after a load commits) or a model (after an import changed it). */
  invalidate(tableId: string): void {
    this.compiled.clear();
    dropPreparedStatements();
    this.versions.set(tableId, (this.versions.get(tableId) ?? 0) + 1);
    for (const [key, a] of this.answers) if (a.tableIds.includes(tableId)) this.drop(key, a);
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
    // the demo's custom calendars whose tables this emulator has (none without --demo)
    const calendars = availableCalendars((d, s, t) => !!this.catalog.table(d, s, t));
    const common = { clauses: q.clauses, now: new Date(nowMs), calendars, text: query };
    let compiled: CompiledQuery;
    if (ds.model) {
      // a model: its columns over its joined tables, joined as the query needs (model.ts)
      const view = modelView(ds, this.catalog);
      compiled = view.wrap(compileSearch({ ...common, columns: view.columns, table: MODEL_RELATION, tablePaths: view.tablePaths }));
    } else {
      // a worksheet's table, for the columns written with their table path ([flights_1::origin])
      const base = ds.subtype === 'WORKSHEET' ? this.catalog.dataSource(ds.tableId) : undefined;
      const tablePaths = base ? [{ table: base.name, columns: base.columns }] : undefined;
      compiled = compileSearch({ ...common, columns: ds.columns, table: ds.sqlName, tablePaths });
    }
    if (this.compiled.size > 500) this.compiled.clear();
    this.compiled.set(key, compiled);
    return compiled;
  }

  /** What an answer of `ds` depends on (`invalidate` drops it): a model's tables and the model itself (an import changes it), else its table. */
  private tablesOf(ds: LogicalTable): string[] {
    return ds.model ? [...ds.model.tables.map((t) => t.guid), ds.id] : [ds.tableId];
  }

  /** Runs a query over a data source and returns one page (docs/service-interface.md §2.5). Throws `QueryError` for a bad query or page. */
  async search(ds: LogicalTable, query: string, req: PageRequest): Promise<SearchResult> {
    const compiled = this.compile(ds, query);
    const { pageSize, offset } = pageOf(req);
    const tableIds = this.tablesOf(ds);
    const key = `${tableIds.map((t) => `${t}\u0000${this.versions.get(t) ?? 0}`).join('\u0000')}\u0000${ds.id}\u0000${Math.floor(this.now().getTime() / 60_000)}\u0000${query}`;
    const kept = this.answers.get(key);
    if (kept) {
      this.answers.delete(key); // most recently used last
      this.answers.set(key, kept);
    }
    // One page without a window count; the total is then known unless the page is full or empty past
    // the start, in which case a count of the whole result follows (docs/service-notes.md §1.4 totalRowCount).
    const runPage = () => this.engine.withConnection(async (c) => {
      const page = await runPrepared(c, compiled.pageSql, pageParams(compiled, pageSize, offset));
      if ((page.length > 0 || offset === 0) && page.length < pageSize) return { rows: page, total: offset + page.length };
      const r = await runPrepared(c, compiled.countSql, compiled.params);
      return { rows: page, total: Number(r[0]![0]) };
    });
    let rows: unknown[][];
    let total: number;
    try {
      const sliced = kept ? await this.slice(kept, pageSize, offset) : undefined;
      if (sliced) ({ rows, total } = sliced);
      else {
        ({ rows, total } = await runPage());
        // more pages will follow: write the whole answer once, for them to slice
        if (!kept && offset + rows.length < total) this.keep(key, tableIds, compiled);
      }
    } catch (e) {
      // A value DuckDB cannot convert (a TIME text, an out-of-range number) is the query's fault: 400.
      // The engine's text goes to the incident log only (emulator/src/errors.ts), never into the response.
      if (e instanceof Error && /^(Conversion|Invalid Input|Out of Range) Error/.test(e.message)) throw engineQueryFailure(e.message);
      throw e;
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

  /**
   * A page of a kept answer: `limit` rows from row `offset` of its table, and its total. Undefined when
   * the answer could not be written or its table was dropped meanwhile (more answers than
   * ANSWER_CACHE_SIZE at once): the caller then runs the page itself.
   */
  private async slice(answer: KeptAnswer, limit: number, offset: number): Promise<{ rows: unknown[][]; total: number } | undefined> {
    const total = await answer.rows.catch(() => undefined);
    if (total === undefined) return undefined;
    if (offset >= total) return { rows: [], total };
    const rows = await this.engine.withConnection((c) => runPrepared(c, `SELECT * FROM ${answer.name} LIMIT ? OFFSET ?`, [limit, offset])).catch((e: Error) => {
      if (/^Catalog Error/.test(e.message)) return undefined;
      throw e;
    });
    return rows && { rows, total };
  }

  /**
   * Writes the whole answer, in its order, into a new table of `ANSWERS_DB` and keeps it under `key`
   * (dropping the least recently used beyond `ANSWER_CACHE_SIZE`). A failed write is forgotten, so the
   * next request runs the query again.
   */
  private keep(key: string, tableIds: string[], compiled: CompiledQuery): KeptAnswer {
    const name = `${ANSWERS_DB}.a${++this.answerSeq}`;
    const rows = this.engine.withConnection(async (c) => {
      await (this.attached ??= c.run(`ATTACH IF NOT EXISTS ':memory:' AS ${ANSWERS_DB}`).then(() => undefined, (e: unknown) => {
        this.attached = undefined;
        throw e;
      }));
      // insertion order is kept (DuckDB's preserve_insertion_order, on by default): rows stay in the answer's
      // order; the statement answers the count of rows it wrote
      const written = await runOnce(c, `CREATE TABLE ${name} AS ${compiled.sql}`, compiled.params);
      return Number(written[0]![0]);
    });
    const entry: KeptAnswer = { tableIds, name, rows };
    this.answers.set(key, entry);
    rows.catch(() => this.drop(key, entry));
    while (this.answers.size > ANSWER_CACHE_SIZE) {
      const [oldKey, old] = this.answers.entries().next().value!;
      this.drop(oldKey, old);
    }
    return entry;
  }

  /** Forgets a kept answer and drops its table once it is written (a drop failure only leaves memory in use). */
  private drop(key: string, answer: KeptAnswer): void {
    if (this.answers.get(key) === answer) this.answers.delete(key);
    const dropTable = () => this.engine.withConnection((c) => c.run(`DROP TABLE IF EXISTS ${answer.name}`)).then(() => undefined, () => undefined);
    answer.rows.then(dropTable, dropTable);
  }
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
  bindAll(stmt, params);
  return rowsOf(stmt);
}

/** Prepares, binds and runs a statement that runs once (not kept in the statement cache); returns its rows. */
async function runOnce(c: DuckDBConnection, sql: string, params: SqlParam[]): Promise<unknown[][]> {
  const stmt = await c.prepare(sql);
  bindAll(stmt, params);
  return rowsOf(stmt);
}

/**
 * Runs a bound statement and returns its rows, the values as `runAndReadAll().getRows()` gives them. The
 * result is materialized (`run`), so its chunks are read where they are (`getChunk`, synchronous) instead of
 * one `fetchChunk` each, every one a round trip through the thread pool (and one more for the empty chunk
 * that ends the result): on a small answer those hops are a good part of the time outside the query.
 */
async function rowsOf(stmt: DuckDBPreparedStatement): Promise<unknown[][]> {
  const result = await stmt.run();
  const rows: DuckDBValue[][] = [];
  for (let i = 0, n = result.chunkCount; i < n; i++) result.getChunk(i).appendToRows(rows);
  return rows;
}

/** Binds `params` to `stmt` as values ($1, $2, …), never as SQL text. */
function bindAll(stmt: DuckDBPreparedStatement, params: SqlParam[]): void {
  params.forEach((p, i) => {
    if (typeof p === 'number') {
      if (Number.isInteger(p) && Math.abs(p) < 2 ** 53) stmt.bindBigInt(i + 1, BigInt(p));
      else stmt.bindDouble(i + 1, p);
    } else if (typeof p === 'boolean') stmt.bindBoolean(i + 1, p);
    else stmt.bindVarchar(i + 1, p);
  });
}
