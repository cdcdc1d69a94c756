/**
 * searchdata execution: parses a query string, compiles it to DuckDB SQL (compile.ts), runs it and pages
 * the result (field notes 1.2-1.4).
 */
import type { Catalog } from '../catalog';
import type { Engine } from '../engine';

/** Runs search queries against the emulator's data sources. */
export class SearchService {
  constructor(
    readonly engine: Engine,
    readonly catalog: Catalog,
    readonly now: () => Date,
  ) {}

  /** Drops whatever is cached for a table (called after a load commits). */
  invalidate(_tableId: string): void {}
}
