/**
 * The agent tools of TSQ, one implementation for every front end: `tsq mcp` (cli/src/mcp.ts, over the
 * Model Context Protocol) and the extension's language-model tools (client/src/agentTools.ts). Each tool
 * takes its input object and an `AgentBackend` (backend.ts) and answers an `AgentToolResult`: the values
 * as structured content, and a text for the model in which every value from the service is inside a data
 * block (data.ts). A failure answers `isError` with a text that says what happened and what to do; no
 * tool throws, and no text holds a secret of the backend. The table of the tools (names, descriptions,
 * schemas): toolTable.ts; their input and output types: schemas.ts.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { AuthenticationError, ConnectionError, PermissionError, ServiceError } from '../api/errors';
import { parseDocument } from '../language/parser';
import { queryView } from '../language/views';
import type { DataSource } from '../model';
import type { AgentBackend } from './backend';
import { DEFAULT_MAX_ROWS, MAX_ROWS_LIMIT, type CheckDiagnostic, type CheckInput, type CheckOutput, type DescribeInput, type DescribeOutput, type ListOutput, type LoadInput, type LoadOutput, type OrgsOutput, type RunInput, type RunOutput, type SwitchOrgInput } from './schemas';
import { dataBlock, mapDataBlocks } from './data';
import { checkAnswerTml } from './checkAnswer';
import { readAnswerTml } from '../tml/answerTml';
import { redact, secretRedactor } from '../redaction';
import { memberOf } from '../guards';

export { DEFAULT_MAX_ROWS, MAX_ROWS_LIMIT } from './schemas';
export type { CheckDiagnostic, CheckInput, CheckOutput, DescribeInput, DescribeOutput, ListOutput, LoadInput, LoadOutput, OrgsOutput, RunInput, RunOutput, SwitchOrgInput } from './schemas';
/** Sample values `describe_data_source` gives per attribute column. */
export const SAMPLE_VALUES = 5;

/** What a tool answers. `structured` is absent on an error. */
export interface AgentToolResult<T> {
  /** The text for the model: the tool's words, with the service's values inside data blocks. */
  text: string;
  structured?: T;
  isError?: boolean;
}

/** An error of a tool's input found before anything was sent. */
class InputError extends Error {}

const SEVERITY: Record<number, CheckDiagnostic['severity']> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'hint',
};

/** Replaces every secret, in each of its forms (common/src/redaction.ts), inside the strings of a structured value. */
function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.some(Boolean)) return value;
  const clean = secretRedactor(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return clean(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * A tool's text with every secret removed (common/src/redaction.ts `redact`): first from the values inside
 * its data blocks, before their JSON (a value holding a secret JSON-escaped, as a service's error text may,
 * would be escaped twice in the block), then from the whole text.
 */
function redactText(text: string, secrets: readonly string[]): string {
  return redact(secrets.some(Boolean) ? mapDataBlocks(text, (v) => redactDeep(v, secrets)) : text, secrets);
}

/** The text of a failure: what happened and what to do; the service's own message inside a data block. */
function failure(e: unknown, backend: AgentBackend, doing: string): AgentToolResult<never> {
  const secrets = backend.secrets();
  if (e instanceof InputError) return { isError: true, text: redactText(e.message, secrets) };
  let advice: string;
  let serviceText: string | undefined;
  if (e instanceof ConnectionError) advice = `${doing} failed: the Analytics Service could not be reached (${e.aborted ? 'the call was cancelled' : 'network error'}). Check that it runs and the connection's URL; retrying later may work.`;
  else if (e instanceof AuthenticationError) advice = `${doing} failed: the service could not verify the user (HTTP 401). The user must fix the password of the connection; retrying will not help.`;
  else if (e instanceof PermissionError) advice = `${doing} failed: the user lacks the privilege for this (HTTP 403).`;
  else if (e instanceof ServiceError) {
    advice = `${doing} failed: the service refused it (HTTP ${e.status}). Its message is in the data block; fix the request (check_query finds most query mistakes) and try again.`;
    serviceText = e.serviceMessage || e.message;
  } else {
    const kind = memberOf(e, 'kind');
    const message = memberOf(e, 'message');
    advice = `${doing} failed${typeof kind === 'string' && kind ? ` (${kind})` : ''}.`;
    serviceText = typeof message === 'string' ? message : String(e);
  }
  const text = serviceText ? `${advice}\n${dataBlock('The error message', serviceText)}` : advice;
  return { isError: true, text: redactText(text, secrets) };
}

/** Runs a tool body; failures become error results and every text is redacted. */
async function guarded<T>(backend: AgentBackend, doing: string, body: () => Promise<AgentToolResult<T>>): Promise<AgentToolResult<T>> {
  try {
    const r = await body();
    const secrets = backend.secrets();
    return { ...r, text: redactText(r.text, secrets), ...(r.structured !== undefined ? { structured: redactDeep(r.structured, secrets) } : {}) };
  } catch (e) {
    return failure(e, backend, doing);
  }
}

const nonEmpty = (v: unknown, field: string): string => {
  if (typeof v !== 'string' || v.trim() === '') throw new InputError(`"${field}" is required: a non-empty string.`);
  return v.trim();
};

/** Resolves a data source by name or GUID; throws InputError naming the closest names when it does not exist. */
async function dataSourceOf(backend: AgentBackend, name: string, signal?: AbortSignal): Promise<{ ds: DataSource; columns: Awaited<ReturnType<AgentBackend['getColumns']>> }> {
  const columns = await backend.getColumns(name, signal);
  if (!columns) {
    const all = await backend.getDataSources(signal);
    const close = all.filter((d) => d.name.toLowerCase().includes(name.toLowerCase()) || name.toLowerCase().includes(d.name.toLowerCase())).slice(0, 5);
    throw new InputError(
      `There is no data source with that name or GUID on the service (or the user may not see it). Call list_data_sources for the names.${close.length ? `\n${dataBlock('Names that look close', close.map((d) => d.name))}` : ''}`,
    );
  }
  // the tools need the GUID and the name only: the subtype is list_data_sources' business
  return { ds: { id: columns.id, name: columns.name, type: 'LOGICAL_TABLE' }, columns };
}

/** `list_data_sources` {}: every data source, sorted by name. */
export function listDataSources(backend: AgentBackend, signal?: AbortSignal): Promise<AgentToolResult<ListOutput>> {
  return guarded(backend, 'Listing the data sources', async () => {
    const all = (await backend.getDataSources(signal)).map((d) => ({ name: d.name, id: d.id, type: String(d.type) })).sort((a, b) => a.name.localeCompare(b.name));
    // a service without Orgs (or one that cannot say) lists the data sources all the same
    const org = backend.listOrgs ? await backend.listOrgs(signal).then((l) => l.current, () => undefined) : undefined;
    const where = org ? ' in the current Org (switch_org changes it)' : '';
    return { structured: { dataSources: all, ...(org ? { org } : {}) }, text: `${all.length} data source${all.length === 1 ? '' : 's'}${where}.\n${dataBlock(org ? 'The Org, then the data sources (name, id, type)' : 'The data sources (name, id, type)', org ? [org, ...all] : all)}` };
  });
}

/** `list_orgs` {}: the user's Orgs and the current one. */
export function listOrgs(backend: AgentBackend, signal?: AbortSignal): Promise<AgentToolResult<OrgsOutput>> {
  return guarded(backend, 'Listing the Orgs', async () => {
    if (!backend.listOrgs) throw new InputError('This connection offers no Orgs.');
    const list = await backend.listOrgs(signal);
    return { structured: list, text: `${list.orgs.length} Org${list.orgs.length === 1 ? '' : 's'}; the tools run in the current one.\n${dataBlock('The Orgs (id, name) and the current one', list)}` };
  });
}

/** `switch_org` {org}: every later call runs in that Org. */
export function switchOrg(backend: AgentBackend, input: SwitchOrgInput, signal?: AbortSignal): Promise<AgentToolResult<OrgsOutput>> {
  return guarded(backend, 'Switching the Org', async () => {
    const wanted = typeof input?.org === 'number' ? String(input.org) : nonEmpty(input?.org, 'org');
    if (!backend.switchOrg || !backend.listOrgs) throw new InputError('This connection cannot switch Orgs.');
    await backend.switchOrg(wanted, signal);
    const list = await backend.listOrgs(signal);
    return { structured: list, text: `The tools now run in the Org below; call list_data_sources for its data sources.\n${dataBlock('The current Org', list.current ?? null)}` };
  });
}

/** `describe_data_source` {data_source}: columns with type, kind, default aggregation, a formula column's expression and sample values of attributes. */
export function describeDataSource(backend: AgentBackend, input: DescribeInput, signal?: AbortSignal): Promise<AgentToolResult<DescribeOutput>> {
  return guarded(backend, 'Describing the data source', async () => {
    const name = nonEmpty(input?.data_source, 'data_source');
    const { ds, columns } = await dataSourceOf(backend, name, signal);
    const described = await Promise.all(
      columns!.columns.map(async (c) => {
        const out: DescribeOutput['columns'][number] = { name: c.name, dataType: c.dataType, kind: c.kind, sampleValues: [] };
        const aggr = columns!.defaultAggregation?.[c.name];
        if (aggr) out.defaultAggregation = aggr;
        const formula = columns!.formulas?.[c.name];
        if (formula !== undefined) out.formula = formula;
        if (c.description) out.description = c.description;
        if (c.synonyms?.length) out.synonyms = c.synonyms;
        // a measure alone answers one aggregated value, not samples
        if (c.kind === 'ATTRIBUTE' && formula === undefined) out.sampleValues = (await backend.getColumnValues(ds, c.name, SAMPLE_VALUES, signal)).slice(0, SAMPLE_VALUES);
        return out;
      }),
    );
    const structured: DescribeOutput = { name: ds.name, id: ds.id, columns: described };
    return {
      structured,
      text: `${described.length} column${described.length === 1 ? '' : 's'}. In a query write a column as [name]; ATTRIBUTE columns group rows, MEASURE columns are aggregated (by their default aggregation unless the query names one).\n${dataBlock('The data source and its columns', structured)}`,
    };
  });
}

/** The suggestions a diagnostic carries in `data` (validation.ts: `suggestions` of unknown columns and data sources). */
function suggestionsOf(d: Diagnostic): string[] {
  const s = memberOf(d.data, 'suggestions');
  return Array.isArray(s) ? s.filter((x): x is string => typeof x === 'string') : [];
}

/** The text of `range` in `text` (LSP positions, UTF-16 characters). */
function slice(text: string, start: { line: number; character: number }, end: { line: number; character: number }): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return text.slice(offset(start), offset(end));
}

/** The data source an Answer TML's search names (the first of its `tables`), or '' when it names none. */
function answerDataSource(text: string): string {
  return readAnswerTml(text).dataSource?.ref ?? '';
}

/** `check_query` {data_source, query} or {answer_tml}: diagnostics of the language service, nothing sent to searchdata. */
export function checkQuery(backend: AgentBackend, input: CheckInput, signal?: AbortSignal): Promise<AgentToolResult<CheckOutput>> {
  return guarded(backend, 'Checking the query', async () => {
    const tml = typeof input?.answer_tml === 'string' && input.answer_tml.trim() !== '' ? input.answer_tml : undefined;
    const name = tml ? answerDataSource(tml) : nonEmpty(input?.data_source, 'data_source');
    const query = tml ?? nonEmpty(input?.query, 'query');
    let dataSource = name;
    let found: Diagnostic[];
    if (tml) found = await checkAnswerTml(backend, tml, signal);
    else {
      const { ds } = await dataSourceOf(backend, name, signal);
      dataSource = ds.name;
      found = await backend.validate(query, ds, signal);
    }
    const diagnostics = found
      .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character)
      .map((d): CheckDiagnostic => {
        const out: CheckDiagnostic = {
          severity: SEVERITY[d.severity ?? DiagnosticSeverity.Error],
          message: typeof d.message === 'string' ? d.message : String(d.message),
          start: d.range.start,
          end: d.range.end,
          text: slice(query, d.range.start, d.range.end),
          suggestions: suggestionsOf(d),
        };
        if (d.code !== undefined) out.code = String(d.code);
        return out;
      });
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
    const structured: CheckOutput = { dataSource, valid: errors === 0, errors, warnings, diagnostics };
    const summary = errors === 0 ? `The query is valid on this data source${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}; run_query can run it.` : `The query has ${errors} error${errors === 1 ? '' : 's'}; the service would refuse it. Fix them (a suggestion replaces the text at its position) and check again.`;
    return { structured, text: diagnostics.length ? `${summary}\n${dataBlock('The diagnostics (positions are 0-based line and character in the query)', diagnostics)}` : summary };
  });
}

/**
 * The text searchdata receives for `query`: its one query with comments removed (its view's text,
 * views.ts `QueryView.text`, the parser's `Query.text` that Run Query and `tsq query` send). @throws InputError when it holds no query, several
 * (a `;` or a blank line ends one), or an `@datasource` (the data source is the tool's argument).
 */
function oneQuery(query: string): string {
  const doc = parseDocument(query);
  if (doc.directives.length) throw new InputError('Give the data source as "data_source", not as an @datasource line in the query.');
  if (doc.queryCount === 0) throw new InputError('"query" holds no query (only comments or blank lines).');
  if (doc.queryCount > 1) throw new InputError(`"query" holds ${doc.queryCount} queries (a ";" or a blank line ends one): run them one at a time.`);
  return queryView(doc, 0).text;
}

/** `run_query` {data_source, query, max_rows}: the first rows of the answer. */
export function runQuery(backend: AgentBackend, input: RunInput, signal?: AbortSignal): Promise<AgentToolResult<RunOutput>> {
  return guarded(backend, 'Running the query', async () => {
    const name = nonEmpty(input?.data_source, 'data_source');
    const query = nonEmpty(input?.query, 'query');
    const maxRows = input.max_rows ?? DEFAULT_MAX_ROWS;
    if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > MAX_ROWS_LIMIT) throw new InputError(`"max_rows" must be a whole number from 1 to ${MAX_ROWS_LIMIT}.`);
    const queryString = oneQuery(query);
    const { ds } = await dataSourceOf(backend, name, signal);
    const answer = await backend.search({ queryString, dataSource: ds, maxRows }, signal);
    const rows = answer.rows.slice(0, maxRows);
    const total = Math.max(answer.totalRowCount, rows.length);
    const structured: RunOutput = { dataSource: ds.name, columnNames: answer.columnNames, rows, totalRowCount: total, truncated: rows.length < total };
    const cut = structured.truncated ? ` Only the first ${rows.length} are here (max_rows ${maxRows}); narrow the query (top N, filters) or raise max_rows.` : '';
    return { structured, text: `${rows.length} of ${total} row${total === 1 ? '' : 's'}.${cut}\n${dataBlock('The answer: columnNames, then rows in that column order', { columnNames: answer.columnNames, rows })}` };
  });
}

/** `load_csv` {path, table, replace}: only when the backend allows writes; `replace` must be the boolean true to empty the table. */
export function loadCsv(backend: AgentBackend, input: LoadInput, signal?: AbortSignal): Promise<AgentToolResult<LoadOutput>> {
  return guarded(backend, 'Loading the file', async () => {
    if (!backend.loadCsv) throw new InputError('Writes are not allowed here: load_csv needs tsq mcp --allow-writes (or the user\'s confirmation in the editor).');
    const path = nonEmpty(input?.path, 'path');
    const table = nonEmpty(input?.table, 'table');
    if (input.replace !== undefined && typeof input.replace !== 'boolean') throw new InputError('"replace" must be true or false.');
    const replace = input.replace === true;
    const r = await backend.loadCsv({ path, table, replace }, signal);
    return { structured: r, text: `Loaded ${r.rowsWritten} row${r.rowsWritten === 1 ? '' : 's'}${r.ignoredRows ? `; ${r.ignoredRows} ignored` : ''}${replace ? ', replacing every earlier row of the table' : ''} (load cycle committed).\n${dataBlock('The load', r)}` };
  });
}
