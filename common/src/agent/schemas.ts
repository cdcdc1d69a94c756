/**
 * The input and output schemas of the agent tools (tools.ts) as zod shapes, for the MCP server
 * (cli/src/mcp.ts): the SDK validates inputs with them and announces them as JSON Schema
 * (`inputSchema`, `outputSchema`), and checks each structured result against its output schema
 * (MCP specification 2025-06-18, "Structured Content"). The extension declares the same inputs in
 * package.json `contributes.languageModelTools`.
 */
import { z } from 'zod';
import { DEFAULT_MAX_ROWS, MAX_ROWS_LIMIT } from './tools';

const dataSource = z.string().min(1).describe('The data source: its name (as list_data_sources gives it) or GUID.');
const query = z.string().min(1).describe("One TSQ search query, e.g. \"[origin] [delay] top 10 sort by [delay] descending\" (see the resource tsq://language-reference).");
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const position = z.object({ line: z.number().int(), character: z.number().int() });

/** Input shapes by tool name. */
export const INPUT_SCHEMAS = {
  list_data_sources: {},
  describe_data_source: { data_source: dataSource },
  check_query: {
    data_source: dataSource.optional(),
    query: query.optional(),
    answer_tml: z.string().min(1).optional().describe('Instead of data_source and query: the text of an Answer TML (YAML); its search_query and its formulas are checked against its tables.'),
  },
  run_query: {
    data_source: dataSource,
    query,
    max_rows: z.number().int().min(1).max(MAX_ROWS_LIMIT).optional().describe(`Most rows to return (default ${DEFAULT_MAX_ROWS}, at most ${MAX_ROWS_LIMIT}).`),
  },
  load_csv: {
    path: z.string().min(1).describe('Path of the CSV file on this machine.'),
    table: z.string().min(1).describe('The existing target table, database.schema.table (or database.table).'),
    replace: z.boolean().optional().describe('true DELETES EVERY ROW of the table before loading; only when the user asked for it. Default false: the rows are appended.'),
  },
  list_orgs: {},
  switch_org: { org: z.union([z.string().min(1), z.number().int().min(0)]).describe('The Org: its name or id, as list_orgs gives them.') },
} as const;

const org = z.object({ id: z.number().int(), name: z.string() });

/** Output shapes by tool name (the structured content of tools.ts's `*Output` types). */
export const OUTPUT_SCHEMAS = {
  list_data_sources: { dataSources: z.array(z.object({ name: z.string(), id: z.string(), type: z.string() })), org: org.optional() },
  describe_data_source: {
    name: z.string(),
    id: z.string(),
    columns: z.array(
      z.object({
        name: z.string(),
        dataType: z.string(),
        kind: z.enum(['ATTRIBUTE', 'MEASURE']),
        defaultAggregation: z.string().optional(),
        formula: z.string().optional(),
        description: z.string().optional(),
        synonyms: z.array(z.string()).optional(),
        sampleValues: z.array(z.string()),
      }),
    ),
  },
  check_query: {
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
        text: z.string(),
        suggestions: z.array(z.string()),
      }),
    ),
  },
  run_query: { dataSource: z.string(), columnNames: z.array(z.string()), rows: z.array(z.array(cell)), totalRowCount: z.number().int(), truncated: z.boolean() },
  load_csv: { cycleId: z.string(), table: z.string(), rowsWritten: z.number().int(), ignoredRows: z.number().int(), bytes: z.number() },
  list_orgs: { orgs: z.array(org), current: org.optional() },
  switch_org: { orgs: z.array(org), current: org.optional() },
} as const;
