/**
 * The input and output schemas of the agent tools (tools.ts) in zod, and the TypeScript types of the tools'
 * inputs and structured answers derived from them (`z.infer`): one declaration for the code, for MCP (the
 * SDK validates inputs with them, announces them as JSON Schema `inputSchema`/`outputSchema` and checks each
 * structured result, MCP specification 2025-06-18 "Structured Content") and for package.json's
 * `contributes.languageModelTools` (toolTable.ts, scripts/agentTools.ts).
 */
import * as z from 'zod';

/** Rows `run_query` returns when `max_rows` is not given. */
export const DEFAULT_MAX_ROWS = 100;
/** The most rows `run_query` returns in one call. */
export const MAX_ROWS_LIMIT = 10_000;

const dataSource = z.string().min(1).describe('The data source: its name (as the list of data sources gives it) or GUID.');
const query = z.string().min(1).describe('One TSQ search query, e.g. "[origin] [delay] top 10 sort by [delay] descending". TSQ is a search language, not SQL: columns in [brackets], values in single quotes.');
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const position = z.object({ line: z.number().int(), character: z.number().int() });
const org = z.object({ id: z.number().int().describe("The service's integer id."), name: z.string() });
const orgs = z.object({ orgs: z.array(org), current: org.optional() });

/** Input schemas by tool name. */
export const INPUT_SCHEMAS = {
  list_data_sources: z.object({}),
  describe_data_source: z.object({ data_source: dataSource }),
  check_query: z.object({
    data_source: dataSource.optional(),
    query: query.optional(),
    answer_tml: z.string().min(1).optional().describe('Instead of data_source and query: the text of an Answer TML (YAML); its search_query and its formulas are checked against its tables.'),
  }),
  run_query: z.object({
    data_source: dataSource,
    query,
    max_rows: z.number().int().min(1).max(MAX_ROWS_LIMIT).optional().describe(`Most rows to return (default ${DEFAULT_MAX_ROWS}, at most ${MAX_ROWS_LIMIT}).`)
      // announced in the JSON Schema only: the tool applies it (an absent max_rows reaches runQuery absent)
      .meta({ default: DEFAULT_MAX_ROWS }),
  }),
  load_csv: z.object({
    path: z.string().min(1).describe('Path of the CSV file on this machine.'),
    table: z.string().min(1).describe('The existing target table, database.schema.table (or database.table).'),
    replace: z.boolean().optional().describe('true DELETES EVERY ROW of the table before loading; only when the user asked for it. Default false: the rows are appended.'),
  }),
  list_orgs: z.object({}),
  switch_org: z.object({ org: z.union([z.string().min(1), z.number().int().min(0)]).describe('The Org: its name or id, as list_orgs gives them.') }),
} as const;

/** Output schemas by tool name: the structured content of each tool. */
export const OUTPUT_SCHEMAS = {
  list_data_sources: z.object({ dataSources: z.array(z.object({ name: z.string(), id: z.string(), type: z.string() })), org: org.optional().describe('The Org the data sources are of, where the front end has Orgs.') }),
  describe_data_source: z.object({
    name: z.string(),
    id: z.string(),
    columns: z.array(
      z.object({
        name: z.string(),
        dataType: z.string(),
        kind: z.enum(['ATTRIBUTE', 'MEASURE']),
        defaultAggregation: z.string().optional(),
        formula: z.string().optional().describe("A formula column's expression."),
        description: z.string().optional(),
        synonyms: z.array(z.string()).optional(),
        sampleValues: z.array(z.string()),
      }),
    ),
  }),
  check_query: z.object({
    dataSource: z.string(),
    valid: z.boolean(),
    errors: z.number().int(),
    warnings: z.number().int(),
    diagnostics: z.array(
      z.object({
        severity: z.enum(['error', 'warning', 'info', 'hint']),
        message: z.string(),
        code: z.string().optional(),
        start: position,
        end: position,
        text: z.string().describe("The query's text in the range."),
        suggestions: z.array(z.string()).describe('Replacements that would fix it (closest column or data source names), when the language service has some.'),
      }),
    ),
  }),
  run_query: z.object({
    dataSource: z.string(),
    columnNames: z.array(z.string()),
    rows: z.array(z.array(cell)),
    totalRowCount: z.number().int().describe('Rows of the whole answer.'),
    truncated: z.boolean().describe('True when rows holds fewer rows than the whole answer.'),
  }),
  load_csv: z.object({
    cycleId: z.string(),
    table: z.string().describe('database.schema.table'),
    rowsWritten: z.number().int(),
    ignoredRows: z.number().int(),
    bytes: z.number().describe('Bytes uploaded.'),
  }),
  list_orgs: orgs,
  switch_org: orgs,
} as const;

/** The input of `describe_data_source`. */
export type DescribeInput = z.infer<typeof INPUT_SCHEMAS.describe_data_source>;
/** The input of `check_query`: a query on a data source, or an Answer TML (its search and its formulas). */
export type CheckInput = z.infer<typeof INPUT_SCHEMAS.check_query>;
/** The input of `run_query` (`max_rows` 1 to `MAX_ROWS_LIMIT`; default `DEFAULT_MAX_ROWS`). */
export type RunInput = z.infer<typeof INPUT_SCHEMAS.run_query>;
/** The input of `load_csv` (`replace` true: empty the table first, load_options.empty_target; default append). */
export type LoadInput = z.infer<typeof INPUT_SCHEMAS.load_csv>;
/** The input of `switch_org`. */
export type SwitchOrgInput = z.infer<typeof INPUT_SCHEMAS.switch_org>;
/** The structured answer of `list_data_sources`. */
export type ListOutput = z.infer<typeof OUTPUT_SCHEMAS.list_data_sources>;
/** The structured answer of `list_orgs` and `switch_org`. */
export type OrgsOutput = z.infer<typeof OUTPUT_SCHEMAS.list_orgs>;
/** The structured answer of `describe_data_source`. */
export type DescribeOutput = z.infer<typeof OUTPUT_SCHEMAS.describe_data_source>;
/** The structured answer of `check_query`. */
export type CheckOutput = z.infer<typeof OUTPUT_SCHEMAS.check_query>;
/** One diagnostic of `check_query`: an LSP range in the query (0-based lines, UTF-16 characters). */
export type CheckDiagnostic = CheckOutput['diagnostics'][number];
/** The structured answer of `run_query`. */
export type RunOutput = z.infer<typeof OUTPUT_SCHEMAS.run_query>;
/** The structured answer of `load_csv`. */
export type LoadOutput = z.infer<typeof OUTPUT_SCHEMAS.load_csv>;
