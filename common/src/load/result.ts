/**
 * What a load reports, whichever way it wrote its rows (the data-load API's cycle or an input table's
 * update, `LoadPath`): `LoadResult` for a success, `LoadError` for a failure with what it means for the
 * table. Shared by the two paths of `runLoad` (pipeline.ts, inputTable.ts).
 */
import type { LoadDefinition, LoadStatus } from '../api/loadApi';

/**
 * How a load writes its rows: `dataLoad`, a cycle of the data-load API (`/ts_dataservice/v1`, Software
 * clusters); `inputTable`, one `update` of a REST API v2 input table (Cloud, 26.11.0.cl), which replaces
 * the table's rows.
 */
export type LoadPath = 'dataLoad' | 'inputTable';

/** Bytes of a UTF-8 file that are not UTF-8, found while its chunks were planned. */
export interface InvalidBytes {
  count: number;
  /** File offset and value of the first one. */
  firstOffset: number;
  firstByte: number;
}

/** What a successful load reports. */
export interface LoadResult {
  /** How the rows were written. */
  via: LoadPath;
  /** The data-load cycle; on the input-table path, the input table's GUID. */
  cycleId: string;
  status: LoadStatus;
  rowsWritten: number;
  ignoredRows: number;
  chunks: number;
  /** Bytes of the file sent (without repeated headers and multipart envelopes). */
  bytes: number;
  /** Wall time of the whole cycle in ms. */
  ms: number;
  /** Wall time of the upload (first chunk sent to last chunk answered) in ms. */
  uploadMs: number;
  /** Bytes that are not UTF-8 in a file loaded as UTF-8: the service refuses their records as bad records. */
  invalidUtf8?: InvalidBytes;
}

/** Why a load did not succeed. */
export type LoadErrorKind = 'cancelled' | 'connection' | 'permission' | 'authentication' | 'refused' | 'failed' | 'source' | 'unknown';

/** A load that did not succeed, with what it means for the table. */
export class LoadError extends Error {
  constructor(
    readonly kind: LoadErrorKind,
    message: string,
    /** True when the table is known to be as it was (the cycle was aborted, refused or failed without writing). */
    readonly tableUnchanged: boolean,
    readonly cycleId?: string,
    /** The final status when the service reported one (a failed load: ignored rows, parsing errors). */
    readonly status?: LoadStatus,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LoadError';
  }
}

/** `database.schema.table` of a load definition's target (schema omitted when not given). */
export function targetName(def: LoadDefinition): string {
  return [def.target.database, def.target.schema, def.target.table].filter(Boolean).join('.');
}

