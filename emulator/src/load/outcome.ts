/**
 * The outcome of every committed load cycle, kept in the engine itself: the table
 * `"tsq_emulator"."load_cycle_outcome"` of the emulator's DuckDB database. A commit inserts its cycle's row
 * in the SAME transaction as the cycle's rows, so after a crash at any instant the engine holds either the
 * rows and their outcome, or neither. On start, a cycle whose metadata still says COMMITTING takes its
 * status from here: OK with the recorded counts when the row exists, LOAD_FAILED (no rows written) when it
 * does not. The cycle id is the primary key, so one cycle's rows can never be committed twice.
 *
 * The schema name has no dot, so it cannot collide with a target table's schema (`"<database>.<schema>"`,
 * emulator/src/engine.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ParsingError } from './cycles';

/** The quoted name of the outcome table. */
export const OUTCOME_TABLE = '"tsq_emulator"."load_cycle_outcome"';

/** What a committed cycle recorded. */
export interface CycleOutcome {
  cycleId: string;
  rowsWritten: number;
  ignoredRowCount: number;
  parsingErrors: ParsingError[];
  hasBadRecords: boolean;
  /** Epoch microseconds of the commit. */
  endTime: number;
}

/** Creates the outcome table when missing. Throws DuckDB's error. */
export async function ensureOutcomeTable(conn: DuckDBConnection): Promise<void> {
  await conn.run('CREATE SCHEMA IF NOT EXISTS "tsq_emulator"');
  await conn.run(
    `CREATE TABLE IF NOT EXISTS ${OUTCOME_TABLE} (cycle_id VARCHAR PRIMARY KEY, rows_written BIGINT NOT NULL, ignored_row_count BIGINT NOT NULL, ` +
      'parsing_errors VARCHAR NOT NULL, has_bad_records BOOLEAN NOT NULL, end_time BIGINT NOT NULL)',
  );
}

/**
 * Inserts a cycle's outcome on `conn`, inside the caller's open transaction (the one holding the cycle's
 * rows). Throws DuckDB's error, e.g. a constraint error when the cycle was committed already.
 */
export async function recordOutcome(conn: DuckDBConnection, o: CycleOutcome): Promise<void> {
  await conn.run(`INSERT INTO ${OUTCOME_TABLE} VALUES ($1, $2, $3, $4, $5, $6)`, [
    o.cycleId,
    o.rowsWritten,
    o.ignoredRowCount,
    JSON.stringify(o.parsingErrors),
    o.hasBadRecords,
    o.endTime,
  ]);
}

/** The recorded outcome of a cycle, or undefined when it never committed. Throws DuckDB's error. */
export async function readOutcome(conn: DuckDBConnection, cycleId: string): Promise<CycleOutcome | undefined> {
  const r = await conn.runAndReadAll(`SELECT rows_written, ignored_row_count, parsing_errors, has_bad_records, end_time FROM ${OUTCOME_TABLE} WHERE cycle_id = $1`, [cycleId]);
  const row = r.getRows()[0];
  if (!row) return undefined;
  return {
    cycleId,
    rowsWritten: Number(row[0]),
    ignoredRowCount: Number(row[1]),
    parsingErrors: JSON.parse(String(row[2])) as ParsingError[],
    hasBadRecords: Boolean(row[3]),
    endTime: Number(row[4]),
  };
}
