/**
 * The seam between the emulator's parts: the core (CLI, Fastify app, DuckDB store, catalog, sessions and
 * privileges, public API, searchdata) and the data-load API (`emulator/src/load/`). The core builds one
 * `EmulatorContext` and hands it to `registerLoadApi`.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnDataType } from '../../common/src/model';

/** Privileges of ThoughtSpot-like groups. Loads need DATAMANAGEMENT or ADMINISTRATION (docs/service-interface.md §5: 403 otherwise). */
export type Privilege = 'ADMINISTRATION' | 'DATAMANAGEMENT' | 'USERDATAUPLOADING' | 'DATADOWNLOADING' | 'AUTHORING' | 'SHAREWITHALL';

/** A user of the emulator acting in one Org, with the privileges in force now there (the union of its groups', recomputed on every call). */
export interface EmulatorUser {
  id: string;
  name: string;
  displayName: string;
  privileges: ReadonlySet<Privilege>;
  /** The Org the session or token runs in (0: Primary); the user sees and changes only that Org's objects. */
  orgId: number;
}

/** A column of a physical table, in table order. */
export interface TableColumnInfo {
  name: string;
  dataType: ColumnDataType;
}

/** A table that loads can target; `sqlName` is the quoted DuckDB identifier to use in SQL (`"schema"."table"`). */
export interface TableInfo {
  /** GUID of the LOGICAL_TABLE. */
  id: string;
  database: string;
  schema: string;
  name: string;
  sqlName: string;
  columns: TableColumnInfo[];
}

/** What the core offers to the data-load API. */
export interface EmulatorContext {
  /** Folder for all state: the DuckDB file, metadata, load cycles (`<dataDir>/cycles/<cycle id>/`). */
  readonly dataDir: string;
  /** The clock (pinned by `--now`). */
  now(): Date;
  /** Host and port a load cycle's `node_address` names (the load port when there is one). */
  nodeAddress(): { host: string; port: number } | Record<string, never>;
  /** A new DuckDB connection to the emulator's database; the caller closes it (`closeSync()`). Use one per transaction. */
  connect(): Promise<DuckDBConnection>;
  /** Looks a table up by a load definition's target (names compared case-insensitively; schema defaults to `engine_default_schema`). */
  findTable(database: string, schema: string | undefined, table: string): TableInfo | undefined;
  /** Checks a user name and password; undefined when they do not match. */
  verifyPassword(username: string, password: string): Promise<EmulatorUser | undefined>;
  /** The user by id with its current privileges (privileges can change while a session lives). */
  userById(id: string): EmulatorUser | undefined;
  /** Called after a commit changed a table's rows (so caches such as searchdata's can be dropped). */
  tableChanged(table: TableInfo): void;
  /** Milliseconds a load cycle may stay in INGESTING without a chunk before it expires (emulator/src/load/service.ts; default 60 minutes). */
  readonly loadCycleIdleMs?: number;
  /** Registers `listener`, called with a user id whenever the core ends that user's sessions (password changed, user deleted). */
  onUserSessionsEnded?(listener: (userId: string) => void): void;
  /**
   * The user of a valid REST API v2 bearer token (`Authorization: Bearer`), undefined for anything else
   * (expired, revoked, unknown). The data-load API accepts these beside its own session cookie: a v1 API
   * that takes bearer tokens as v1 does (docs/service-notes.md §5.3; docs/service-interface.md §10).
   */
  userOfBearer?(token: string): EmulatorUser | undefined;
}
