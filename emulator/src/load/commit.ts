/**
 * CommitLoad's work (seed 3 and 4.1, field notes 4.3): read every chunk of a cycle with the load
 * definition's format, convert the fields to the target column types, write the accepted rows to a staged
 * file and the rejected raw records to the bad records file, then — when the ignored rows do not exceed
 * `max_ignored_rows` — apply all rows in ONE DuckDB transaction (`DELETE` first with `empty_target`),
 * with `INSERT … SELECT … FROM read_csv(staged file)`. Otherwise, or when the transaction fails, the
 * table is unchanged and the cycle ends LOAD_FAILED.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { TableInfo } from '../context';
import { makeConverter, type FieldConverter } from './convert';
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
  /** Bytes of the longest staged line (DuckDB's read_csv needs `max_line_size` at least that). */
  longestLine: number;
}

/** A write stream that buffers small strings and honours back-pressure. */
class TextSink {
  private parts: string[] = [];
  private size = 0;
  private readonly stream: WriteStream;
  constructor(path: string) {
    this.stream = createWriteStream(path);
  }
  add(s: string): void {
    this.parts.push(s);
    this.size += s.length;
  }
  /** Writes what is buffered once it passes ~1 MB (or always with `force`). */
  async flush(force = false): Promise<void> {
    if (!force && this.size < 1 << 20) return;
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }
  async close(): Promise<void> {
    await this.flush(true);
    this.stream.end();
    await once(this.stream, 'close');
  }
}

/** Quotes a staged VARCHAR value for DuckDB's read_csv (quote `"`, escape `"`); `""` is the empty string. */
function stagedText(v: string): string {
  if (v === '' || /[",\n\r]/.test(v)) return `"${v.replace(/"/g, '""')}"`;
  return v;
}

/**
 * Reads the chunks of a cycle (in order) into `stagedPath` and `badRecordsPath`. Throws only for I/O
 * errors (a chunk file that cannot be read); bad data never throws, it becomes bad records.
 * `isCancelled` is polled between pieces so an abort stops the work early.
 */
export async function stageChunks(
  chunkPaths: string[],
  def: LoadDefinition,
  table: TableInfo,
  stagedPath: string,
  badRecordsPath: string,
  isCancelled: () => boolean = () => false,
): Promise<StageResult> {
  const columns = table.columns;
  const converters: FieldConverter[] = columns.map((c) => makeConverter(c.dataType, def.format));
  const isString = columns.map((c) => c.dataType === 'VARCHAR' || c.dataType === 'CHAR');
  const width = columns.length;
  const staged = new TextSink(stagedPath);
  let bad: TextSink | undefined;
  const result: StageResult = { rows: 0, ignored: 0, parsingErrors: [], hasBadRecords: false, longestLine: 0 };
  const maxReported = def.advancedOptions.maxReportedParsingErrors;
  let header: string | undefined;

  const reject = (chunk: number, r: RawRecord, reason: string): void => {
    result.ignored++;
    if (result.parsingErrors.length < maxReported) result.parsingErrors.push({ chunk, row: r.line, reason });
    bad ??= new TextSink(badRecordsPath);
    bad.add(r.raw.endsWith('\n') ? r.raw : r.raw + '\n');
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
          if (!v.ok) return reject(chunk, r, `column ${columns[i]?.name}: ${v.reason}`);
          if (i > 0) line += ',';
          if (v.value !== null) line += isString[i] ? stagedText(v.value) : v.value;
        }
        staged.add(line + '\n');
        // UTF-8 takes at most 3 bytes per UTF-16 unit; count exactly only for lines that could be long
        if (line.length * 3 > result.longestLine) result.longestLine = Math.max(result.longestLine, Buffer.byteLength(line) + 1);
        result.rows++;
      };
      const splitter = new RecordSplitter(def.format, onRecord);
      const input = createReadStream(chunkPaths[c] as string, { encoding: 'utf8', highWaterMark: 1 << 20 });
      for await (const piece of input) {
        splitter.push(piece as string);
        await staged.flush();
        if (bad) await bad.flush();
        if (isCancelled()) {
          input.destroy();
          return result;
        }
      }
      splitter.end();
    }
  } finally {
    await staged.close();
    if (bad) await bad.close();
  }
  result.hasBadRecords = bad !== undefined;
  return result;
}

/** Quotes a DuckDB identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes a SQL string literal. */
function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** DuckDB types of the staged columns (the table's own types convert on insert when they differ). */
const STAGED_TYPE: Record<string, string> = {
  VARCHAR: 'VARCHAR',
  CHAR: 'VARCHAR',
  BOOL: 'BOOLEAN',
  INT32: 'INTEGER',
  INT64: 'BIGINT',
  FLOAT: 'FLOAT',
  DOUBLE: 'DOUBLE',
  DATE: 'DATE',
  DATE_TIME: 'TIMESTAMP',
  TIME: 'TIME',
};

/**
 * Applies the staged rows to the table in one transaction on `conn`: `DELETE` (with `empty_target`) then
 * `INSERT … SELECT * FROM read_csv(staged)`. Rolls back and rethrows the DuckDB error on any failure, so
 * the table is either fully loaded or unchanged. Returns the number of rows inserted.
 */
export async function applyStaged(conn: DuckDBConnection, table: TableInfo, stagedPath: string, rows: number, emptyTarget: boolean, longestLine = 0): Promise<number> {
  // DuckDB's default is 2 MB; its read buffer grows with max_line_size, so ask only for what the longest line needs
  const maxLine = Math.max(2 * 1024 * 1024, longestLine + 1024);
  const cols = table.columns.map((c, i) => `${literal(`c${i}`)}: ${literal(STAGED_TYPE[c.dataType] ?? 'VARCHAR')}`).join(', ');
  const names = table.columns.map((c) => ident(c.name)).join(', ');
  await conn.run('BEGIN TRANSACTION');
  try {
    if (emptyTarget) await conn.run(`DELETE FROM ${table.sqlName}`);
    let inserted = 0;
    if (rows > 0) {
      const reader = await conn.run(
        `INSERT INTO ${table.sqlName} (${names}) SELECT * FROM read_csv(${literal(stagedPath)}, columns = {${cols}}, header = false, delim = ',', quote = '"', escape = '"', ` +
          `auto_detect = false, allow_quoted_nulls = false, null_padding = false, max_line_size = ${maxLine})`,
      );
      inserted = reader.rowsChanged;
    }
    await conn.run('COMMIT');
    return inserted;
  } catch (e) {
    try {
      await conn.run('ROLLBACK');
    } catch {
      // the transaction is already aborted
    }
    throw e;
  }
}
