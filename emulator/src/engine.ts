/**
 * The emulator's engine: one DuckDB database file, `<dataDir>/engine.duckdb`.
 *
 * Mapping of load definition targets (docs/service-interface.md §2.2) onto DuckDB: the table `{database, schema, table}` is the
 * DuckDB table `"<database>.<schema>"."<table>"` — one DuckDB schema per database and schema of the
 * service, named `database.schema` with the names as declared in the seed (DuckDB compares identifiers
 * case-insensitively, as the service does). Column names are kept as declared.
 */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ColumnDataType } from '../../common/src/model';
import { CALENDAR_TYPES, NUMERIC_TYPES } from '../../common/src/language/keywords';

/**
 * Keeps a U+FEFF that starts a VARCHAR value when DuckDB's values are read into JavaScript. @duckdb/node-api
 * decodes every string value with one `new TextDecoder()` (lib/vectors/dataAccessors.js, `textDecoder`), whose
 * default `ignoreBOM: false` drops a leading U+FEFF from each value: a field loaded as `\ufeffx` (kept as such
 * in the table, `hex(name)` = `EFBBBF78`) read back as `x` through searchdata. Only the first bytes of a file
 * may be a byte-order mark (the load's splitter drops that one, emulator/src/load/records.ts), never the first
 * character of a value. The package reads the decoder from its module's exports at every call, so replacing it
 * there once, with `ignoreBOM: true`, covers every reader of this process. Called at module load; never throws
 * (a later package layout without that module leaves the package's decoder in place).
 */
function keepLeadingBomInStrings(): void {
  try {
    const fromPackage = createRequire(require.resolve('@duckdb/node-api'));
    const accessors = fromPackage('./vectors/dataAccessors') as { textDecoder?: InstanceType<typeof TextDecoder> };
    if (accessors.textDecoder instanceof TextDecoder) accessors.textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
  } catch {
    // another layout of the package: nothing to replace
  }
}
keepLeadingBomInStrings();

/**
 * Quotes a DuckDB identifier (`"` doubled), so no name can inject SQL: `a"b` → `"a""b"`.
 * Any string is accepted; never throws.
 */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Quotes a SQL string literal (`'` doubled), so no path, value or format can inject SQL: `O'Hare` → `'O''Hare'`.
 * Any string is accepted; never throws.
 */
export function quoteLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** The quoted DuckDB name of a target table: `"<database>.<schema>"."<table>"`. */
export function sqlTableName(database: string, schema: string, table: string): string {
  return `${quoteIdent(`${database}.${schema}`)}.${quoteIdent(table)}`;
}

/** The DuckDB type that stores a column data type (docs/service-notes.md §3.2 vocabulary): the seeded tables' column types, and the types loads stage their rows in. */
export const DUCKDB_TYPE: Record<ColumnDataType, string> = {
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

/** The column data type for a DuckDB type name (as `DESCRIBE` prints it); VARCHAR for anything else. */
export function dataTypeOfDuckDb(t: string): ColumnDataType {
  const u = t.toUpperCase();
  if (u === 'BOOLEAN') return 'BOOL';
  if (['TINYINT', 'SMALLINT', 'INTEGER', 'UTINYINT', 'USMALLINT'].includes(u)) return 'INT32';
  if (['BIGINT', 'UINTEGER', 'HUGEINT', 'UBIGINT'].includes(u)) return 'INT64';
  if (u === 'FLOAT' || u === 'REAL') return 'FLOAT';
  if (u === 'DOUBLE' || u.startsWith('DECIMAL')) return 'DOUBLE';
  if (u === 'DATE') return 'DATE';
  if (u.startsWith('TIMESTAMP')) return 'DATE_TIME';
  if (u.startsWith('TIME')) return 'TIME';
  return 'VARCHAR';
}

/** True for the numeric column data types (MEASUREs by default): the keyword catalogue's `NUMERIC_TYPES`. */
export function isNumeric(t: ColumnDataType): boolean {
  return NUMERIC_TYPES.has(t);
}

/** True for DATE and DATE_TIME (date filters apply): the keyword catalogue's `CALENDAR_TYPES`. */
export function isDate(t: ColumnDataType): boolean {
  return CALENDAR_TYPES.has(t);
}

/**
 * The DuckDB database with a small pool of connections for reads (searchdata); writers (loads, seeding)
 * take their own connection from `connect()` and close it.
 */
export class Engine {
  private idle: DuckDBConnection[] = [];
  private constructor(readonly instance: DuckDBInstance) {}

  /** Opens (or creates) `<dataDir>/engine.duckdb`. Throws when the file is locked by another process. */
  static async open(dataDir: string): Promise<Engine> {
    return new Engine(await DuckDBInstance.create(join(dataDir, 'engine.duckdb')));
  }

  /** A new connection; the caller closes it (`closeSync()`). */
  connect(): Promise<DuckDBConnection> {
    return this.instance.connect();
  }

  /** Runs `fn` on a pooled connection (at most a few kept idle), returning the connection afterwards. */
  async withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const c = this.idle.pop() ?? (await this.instance.connect());
    try {
      return await fn(c);
    } finally {
      if (this.idle.length < 4) this.idle.push(c);
      else c.closeSync();
    }
  }

  /** Closes every pooled connection and the database. */
  close(): void {
    for (const c of this.idle) c.closeSync();
    this.idle = [];
    this.instance.closeSync();
  }
}
