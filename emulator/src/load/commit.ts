/**
 * CommitLoad's work (docs/service-interface.md §3 and 4.1, docs/service-notes.md §4.3): read every chunk of a cycle with the load
 * definition's format, convert the fields to the target column types, write the accepted rows to staged
 * files (parts of ~16 MB) and the rejected raw records to the bad records file. All rows go into the
 * table in ONE DuckDB transaction (`DELETE` first with `empty_target`), one
 * `INSERT … SELECT … FROM read_csv(staged part)` per part, each started as soon as its part is written
 * so DuckDB inserts while the next part is parsed. The transaction commits only when the ignored rows do
 * not exceed `max_ignored_rows` and every insert succeeded; otherwise it rolls back, the table is
 * unchanged and the cycle ends LOAD_FAILED.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { createReadStream, createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { TableInfo } from '../context';
import { DUCKDB_TYPE, quoteIdent, quoteLiteral } from '../engine';
import { isFamily } from '../../../common/src/model';
import { makeConverter, Rejection, type FieldConverter } from './convert';
import type { LoadDefinition } from './definition';
import type { ParsingError } from './cycles';
import { RecordSplitter, type RawRecord } from './records';

/** What reading the chunks produced. */
export interface StageResult {
  /** Rows written to the staged file. */
  rows: number;
  /** Records rejected (written to the bad records file). */
  ignored: number;
  /** The first `max_reported_parsing_errors` rejections. */
  parsingErrors: ParsingError[];
  /** True when the bad records file was written. */
  hasBadRecords: boolean;
}

/** One staged file of converted rows, ready for `INSERT … SELECT … FROM read_csv`. */
export interface StagedPart {
  path: string;
  rows: number;
  /** Upper bound of the bytes of its longest line (DuckDB's read_csv needs `max_line_size` at least that). */
  longestLine: number;
}

/**
 * A write stream fed with small strings, encoded at once into a 1 MB buffer (so no string outlives
 * its line and the garbage collector has little to copy), written out when full, with back-pressure.
 */
class TextSink {
  private static readonly SIZE = 1 << 20;
  private buf = Buffer.allocUnsafe(TextSink.SIZE);
  private used = 0;
  private readonly stream: WriteStream;
  /** Bytes handed to the stream so far. */
  bytes = 0;
  constructor(path: string) {
    this.stream = createWriteStream(path);
  }
  add(s: string): void {
    // a UTF-16 unit takes at most 3 bytes in UTF-8
    if (this.used + s.length * 3 > this.buf.length) {
      this.spill();
      if (s.length * 3 > this.buf.length) {
        const big = Buffer.from(s);
        this.bytes += big.length;
        this.stream.write(big);
        return;
      }
    }
    this.used += this.buf.write(s, this.used);
  }
  /** Hands the filled part of the buffer to the stream (without waiting) and starts a new buffer. */
  private spill(): void {
    if (this.used === 0) return;
    this.stream.write(this.buf.subarray(0, this.used));
    this.bytes += this.used;
    this.buf = Buffer.allocUnsafe(TextSink.SIZE);
    this.used = 0;
  }
  /** Waits while the stream has more than it wants buffered. */
  async flush(): Promise<void> {
    if (this.stream.writableNeedDrain) await once(this.stream, 'drain');
  }
  private closing: Promise<unknown> | undefined;
  /** Writes what is left and closes the file; safe to call again. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.spill();
      this.closing = once(this.stream, 'close');
      this.stream.end();
    }
    await this.closing;
  }
}

/** Quotes a staged VARCHAR value for DuckDB's read_csv (quote `"`, escape `"`); `""` is the empty string. */
function stagedText(v: string): string {
  if (v === '' || /[",\n\r]/.test(v)) return `"${v.replace(/"/g, '""')}"`;
  return v;
}

/** Bytes of staged rows per part. */
const PART_BYTES = 16 * 1024 * 1024;

/**
 * Reads the chunks of a cycle (in order), writing accepted rows to staged parts (`partPath(1)`,
 * `partPath(2)`, …) and rejected raw records to `badRecordsPath`. Each finished part is handed to
 * `onPart` together with the counts so far; the next part is written while `onPart`'s promise settles
 * (it should resolve once it has *started* its work). Throws only for I/O errors or when `onPart`
 * throws; bad data never throws, it becomes bad records.
 */
export async function stageChunks(
  chunkPaths: string[],
  def: LoadDefinition,
  table: TableInfo,
  partPath: (k: number) => string,
  badRecordsPath: string,
  onPart: (part: StagedPart, soFar: StageResult) => Promise<void>,
  partBytes = PART_BYTES,
): Promise<StageResult> {
  const columns = table.columns;
  const converters: FieldConverter[] = columns.map((c) => makeConverter(c.dataType, def.format));
  const isString = columns.map((c) => isFamily(c.dataType, 'text'));
  const width = columns.length;
  let partNo = 1;
  let part: StagedPart = { path: partPath(partNo), rows: 0, longestLine: 0 };
  let staged = new TextSink(part.path);
  let bad: TextSink | undefined;
  const result: StageResult = { rows: 0, ignored: 0, parsingErrors: [], hasBadRecords: false };
  const maxReported = def.advancedOptions.maxReportedParsingErrors;
  let header: string | undefined;

  const reject = (chunk: number, r: RawRecord, reason: string): void => {
    result.ignored++;
    if (result.parsingErrors.length < maxReported) result.parsingErrors.push({ chunk, row: r.line, reason });
    bad ??= new TextSink(badRecordsPath);
    bad.add(r.raw.endsWith('\n') ? r.raw : r.raw + '\n');
  };

  /** Closes the current part, hands it over when it has rows, and opens the next one. */
  const finishPart = async (last: boolean): Promise<void> => {
    await staged.close();
    if (part.rows > 0) await onPart(part, result);
    else rmSync(part.path, { force: true });
    if (last) return;
    part = { path: partPath(++partNo), rows: 0, longestLine: 0 };
    staged = new TextSink(part.path);
  };

  try {
    for (let c = 0; c < chunkPaths.length; c++) {
      const chunk = c + 1;
      let first = true;
      const onRecord = (r: RawRecord): void => {
        if (first) {
          first = false;
          if (def.format.hasHeaderRow) {
            // the header is the first record of the first chunk; a later chunk that repeats it skips it too
            if (header === undefined) {
              header = r.raw;
              return;
            }
            if (r.raw === header) return;
          }
        }
        if (r.error) return reject(chunk, r, r.error);
        const fields = r.fields;
        if (fields.length !== width && !def.format.flexible) {
          return reject(chunk, r, `expected ${width} fields, found ${fields.length} (set format.flexible to fill or drop columns)`);
        }
        let line = '';
        for (let i = 0; i < width; i++) {
          const f = i < fields.length ? (fields[i] as string | null) : null;
          const v = (converters[i] as FieldConverter)(f);
          if (v instanceof Rejection) return reject(chunk, r, `column ${columns[i]?.name}: ${v.reason}`);
          if (i > 0) line += ',';
          if (v !== null) line += isString[i] ? stagedText(v) : v;
        }
        staged.add(line + '\n');
        // UTF-8 takes at most 3 bytes per UTF-16 unit: an upper bound is enough for max_line_size
        if (line.length * 3 >= part.longestLine) part.longestLine = line.length * 3 + 1;
        part.rows++;
        result.rows++;
      };
      const splitter = new RecordSplitter(def.format, onRecord);
      // bytes, not text: bytes that are not UTF-8 become bad records (records.ts), never U+FFFD in the table
      const input = createReadStream(chunkPaths[c] as string, { highWaterMark: 1 << 20 });
      for await (const piece of input) {
        splitter.pushBytes(piece as Buffer);
        await staged.flush();
        if (bad) await bad.flush();
        if (staged.bytes >= partBytes) await finishPart(false);
      }
      splitter.end();
    }
    await finishPart(true);
  } finally {
    await staged.close();
    if (bad) await bad.close();
  }
  result.hasBadRecords = bad !== undefined;
  return result;
}

/**
 * One load into a table inside one DuckDB transaction on `conn`: `begin` opens it (and deletes the rows
 * with `empty_target`), `add` inserts staged parts one after the other in the background, `commit`
 * waits for them and commits — or rolls back and rethrows the first DuckDB error — and `rollback`
 * undoes everything. The table is either fully loaded or unchanged.
 */
export class TableLoad {
  private pending: Promise<void> = Promise.resolve();
  private failure: unknown;
  private stopped = false;
  private ended = false;
  /** Rows inserted so far (DuckDB's count). */
  inserted = 0;

  private constructor(
    private readonly conn: DuckDBConnection,
    private readonly table: TableInfo,
  ) {}

  /** Opens the transaction; with `emptyTarget` deletes the table's rows inside it. Throws DuckDB's error. */
  static async begin(conn: DuckDBConnection, table: TableInfo, emptyTarget: boolean): Promise<TableLoad> {
    await conn.run('BEGIN TRANSACTION');
    const load = new TableLoad(conn, table);
    if (emptyTarget) {
      try {
        await conn.run(`DELETE FROM ${table.sqlName}`);
      } catch (e) {
        await load.rollback();
        throw e;
      }
    }
    return load;
  }

  /**
   * Starts inserting `part` once the previous part is in, and returns as soon as it has started (so the
   * caller stages the next part meanwhile). The part's file is deleted when its insert ends. After a
   * failure or `stop`, parts are only deleted.
   */
  async add(part: StagedPart): Promise<void> {
    await this.pending;
    if (this.failure !== undefined || this.stopped) {
      rmSync(part.path, { force: true });
      return;
    }
    this.pending = this.insert(part).then(
      (n) => {
        this.inserted += n;
      },
      (e: unknown) => {
        this.failure = e;
      },
    ).finally(() => rmSync(part.path, { force: true }));
  }

  /** No more parts are inserted (the load will be rolled back). */
  stop(): void {
    this.stopped = true;
  }

  private async insert(part: StagedPart): Promise<number> {
    // DuckDB's default is 2 MB; its read buffer grows with max_line_size, so ask only for what the longest line needs
    const maxLine = Math.max(2 * 1024 * 1024, part.longestLine + 1024);
    const cols = this.table.columns.map((c, i) => `${quoteLiteral(`c${i}`)}: ${quoteLiteral(DUCKDB_TYPE[c.dataType] ?? 'VARCHAR')}`).join(', ');
    const names = this.table.columns.map((c) => quoteIdent(c.name)).join(', ');
    const r = await this.conn.run(
      // new_line: every staged line ends with LF; left to detection, a CR inside a quoted value of the first
      // record made DuckDB take CR as the line end and refuse the part
      `INSERT INTO ${this.table.sqlName} (${names}) SELECT * FROM read_csv(${quoteLiteral(part.path)}, columns = {${cols}}, header = false, delim = ',', quote = '"', escape = '"', new_line = '\\n', ` +
        `auto_detect = false, allow_quoted_nulls = false, null_padding = false, max_line_size = ${maxLine})`,
    );
    return r.rowsChanged;
  }

  /**
   * Waits for the inserts, runs `beforeCommit` with the rows inserted inside the same transaction (the
   * cycle's outcome record, emulator/src/load/outcome.ts) and commits; rolls back and throws the first
   * insert's error, or `beforeCommit`'s, instead. Returns the rows inserted.
   */
  async commit(beforeCommit?: (conn: DuckDBConnection, inserted: number) => Promise<void>): Promise<number> {
    await this.pending;
    if (this.failure !== undefined) {
      await this.rollback();
      throw this.failure;
    }
    if (beforeCommit) {
      try {
        await beforeCommit(this.conn, this.inserted);
      } catch (e) {
        await this.rollback();
        throw e;
      }
    }
    this.ended = true;
    await this.conn.run('COMMIT');
    return this.inserted;
  }

  /** Waits for any insert in flight and rolls the transaction back; never throws. */
  async rollback(): Promise<void> {
    await this.pending;
    if (this.ended) return;
    this.ended = true;
    try {
      await this.conn.run('ROLLBACK');
    } catch {
      // the transaction is already aborted
    }
  }
}
