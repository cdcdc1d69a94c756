/**
 * What the agent tools (tools.ts) need of a front end: the catalog, the language service's validation,
 * searchdata and, where writes are allowed, the load pipeline. Each front end builds one `AgentBackend`
 * from the interfaces it already has: `tsq mcp` (cli/src/mcp.ts) from the command line's connection, the
 * language service `tsq check` uses and the service catalog; the extension (client/src/agentTools.ts)
 * from its connection, its catalog and the running language server. The tools themselves know no
 * front end, so a moved module changes one import in an adapter, never a tool.
 *
 * Every method throws on failure (the service's error, with its message); the tools turn a failure into
 * the tool's error text, with every secret of `secrets()` redacted.
 */
import type { Diagnostic } from 'vscode-languageserver-types';
import type { DataSource, DataSourceColumns } from '../model';
import type { CellValue } from '../model';
import type { LoadOutput, OrgsOutput } from './schemas';

/** A column as `describe_data_source` reports it: the catalog's column plus its default aggregation. */
export interface AgentColumnsAnswer extends DataSourceColumns {
  /**
   * `defaultAggrType` of each column by name (`metadata/details`, docs/service-notes.md §3.2: SUM, AVERAGE,
   * NONE…), when the service gave it.
   */
  defaultAggregation?: Record<string, string>;
  /** The expression of each formula column by name (`metadata/details` `formula.expr` of a model's column, docs/service-notes.md "Models"). */
  formulas?: Record<string, string>;
}

/** What `metadata/details` tells of a data source's columns beyond the catalog: default aggregations and formula expressions, by column name. */
export function columnDetailsOf(storables: readonly ({ header?: { id?: string }; columns?: readonly { header?: { name?: string }; defaultAggrType?: unknown; formula?: { expr?: unknown } }[] } | undefined)[], id: string): Pick<AgentColumnsAnswer, 'defaultAggregation' | 'formulas'> {
  const table = storables.find((s) => s?.header?.id === id) ?? storables[0];
  const formulas: Record<string, string> = {};
  for (const c of table?.columns ?? []) if (c.header?.name && typeof c.formula?.expr === 'string') formulas[c.header.name] = c.formula.expr;
  return { defaultAggregation: defaultAggregationsOf(storables, id), ...(Object.keys(formulas).length ? { formulas } : {}) };
}

/**
 * The `defaultAggregation` of `AgentColumnsAnswer` from the `metadata/details` storables of a request for
 * the data source `id` (its own storable, else the first): `defaultAggrType` by column name, where the
 * service gave a string.
 */
export function defaultAggregationsOf(storables: readonly ({ header?: { id?: string }; columns?: readonly { header?: { name?: string }; defaultAggrType?: unknown }[] } | undefined)[], id: string): Record<string, string> {
  const table = storables.find((s) => s?.header?.id === id) ?? storables[0];
  const out: Record<string, string> = {};
  for (const c of table?.columns ?? []) if (c.header?.name && typeof c.defaultAggrType === 'string') out[c.header.name] = c.defaultAggrType;
  return out;
}

/** One page of a search: the service's answer cut to the rows asked for. */
export interface AgentSearchAnswer {
  columnNames: string[];
  /** Rows in the order of `columnNames`; dates are epoch seconds (docs/service-notes.md §1.2). */
  rows: CellValue[][];
  /** Rows of the whole answer, as the service counted them (`totalRowCount`). */
  totalRowCount: number;
}

/** What `load_csv` reports of a finished load cycle (its output schema, schemas.ts). */
export type AgentLoadAnswer = LoadOutput;

/** An Org as the tools report it: the service's integer id and its name (schemas.ts). */
export type AgentOrg = OrgsOutput['orgs'][number];

/** The port of the agent tools onto a front end (see the module comment). */
export interface AgentBackend {
  /** Every data source the user may see. @throws the service's error when they cannot be read. */
  getDataSources(signal?: AbortSignal): Promise<DataSource[]>;
  /**
   * The columns of a data source by name or GUID (exact name first, then ignoring case); null when the
   * service has no such data source. @throws the service's error when the catalog cannot be read.
   */
  getColumns(dataSource: string, signal?: AbortSignal): Promise<AgentColumnsAnswer | null>;
  /** Up to `limit` distinct values of an attribute column; [] when none or unknown (never throws). */
  getColumnValues(dataSource: DataSource, column: string, limit: number, signal?: AbortSignal): Promise<string[]>;
  /**
   * The language service's diagnostics of `query` run on `dataSource` (as `tsq check` reports them for a
   * file holding only that query under `@datasource`): LSP ranges, 0-based, UTF-16 characters.
   * @throws the service's error when the catalog cannot be read (a check without it would pass anything).
   */
  validate(query: string, dataSource: DataSource, signal?: AbortSignal): Promise<Diagnostic[]>;
  /**
   * The first `maxRows` rows of a search (`searchdata`, page 1 of `maxRows` rows).
   * @throws ServiceError (common/src/api) when the service refuses the query, ConnectionError when it cannot be reached.
   */
  search(params: { queryString: string; dataSource: DataSource; maxRows: number }, signal?: AbortSignal): Promise<AgentSearchAnswer>;
  /**
   * Loads a CSV file into an existing table in one load cycle (common/src/load/pipeline.ts); absent where
   * writes are not allowed. `table` is the target whatever a saved definition says, and the table is
   * emptied first only when `replace` is true (the definition guard, common/src/load/definition.ts).
   * @throws LoadError and the service's errors; an error saying why the file or its definition is refused.
   */
  loadCsv?(params: { path: string; table: string; replace: boolean }, signal?: AbortSignal): Promise<AgentLoadAnswer>;
  /**
   * The Orgs the user may act in and the one the tools run in (common/src/api/orgs.ts); absent where the
   * front end has no Orgs to offer. @throws the service's error
   */
  listOrgs?(signal?: AbortSignal): Promise<{ orgs: AgentOrg[]; current?: AgentOrg }>;
  /**
   * Makes every later tool call run in the Org `org` names (id or name); absent where the front end
   * cannot switch. @throws the service's error (AuthenticationError when the user is not in that Org)
   */
  switchOrg?(org: string, signal?: AbortSignal): Promise<AgentOrg>;
  /** The secrets in use (the password, a token) to redact from every text a tool returns. */
  secrets(): readonly string[];
}
