// The agent tools are declared once, in common/src/agent/toolTable.ts: package.json's
// `contributes.languageModelTools` equals what the table generates in every field (scripts/agentTools.ts
// writes it), `tsq mcp` lists what the table says, and no front end registers a tool by a name of its own.
import { test } from 'node:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AGENT_TOOL_NAMES, AGENT_TOOLS, MCP_FRONT, VSCODE_FRONT, languageModelTools, readToolInput, type LanguageModelToolContribution } from '../../common/src/agent/toolTable';
import type { AgentBackend } from '../../common/src/agent/backend';
import { buildMcpServer } from '../../cli/src/mcp';
import { withLanguageModelTools } from '../../scripts/agentTools';

const root = join(__dirname, '..', '..');
const manifestText = readFileSync(join(root, 'package.json'), 'utf8');
const declared = (JSON.parse(manifestText) as { contributes: { languageModelTools: LanguageModelToolContribution[] } }).contributes.languageModelTools;

/** Every difference between package.json's entries and the table's, as `name.field` lines (a name twice is one). */
function differences(entries: readonly LanguageModelToolContribution[], expected: readonly LanguageModelToolContribution[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) out.push(`${e.name}: declared twice`);
    seen.add(e.name);
    const want = expected.find((x) => x.name === e.name);
    if (!want) {
      out.push(`${e.name}: not in the table`);
      continue;
    }
    for (const field of new Set([...Object.keys(e), ...Object.keys(want)]) as Set<keyof LanguageModelToolContribution>) {
      if (JSON.stringify(e[field]) !== JSON.stringify(want[field])) out.push(`${e.name}.${field}`);
    }
  }
  for (const want of expected) if (!seen.has(want.name)) out.push(`${want.name}: missing`);
  if (!out.length && entries.map((e) => e.name).join() !== expected.map((e) => e.name).join()) out.push('the order differs');
  return out;
}

test("package.json's languageModelTools are the table's, field by field (npm run gen:tools writes them)", () => {
  assert.deepEqual(differences(declared, languageModelTools()), []);
  assert.deepEqual(declared, languageModelTools());
  // the generator rewrites only that array: run on the checked-in file, it changes nothing
  assert.equal(withLanguageModelTools(manifestText), manifestText);
});

test('a description that differs, a tool declared a second time, a missing or unknown tool: each is found', () => {
  const expected = languageModelTools();
  assert.deepEqual(differences(expected.map((t, i) => (i === 1 ? { ...t, modelDescription: `${t.modelDescription} ` } : t)), expected), ['tsq_describe_data_source.modelDescription']);
  assert.deepEqual(differences([...expected, expected[0]], expected), ['tsq_list_data_sources: declared twice']);
  assert.deepEqual(differences(expected.slice(1), expected), ['tsq_list_data_sources: missing']);
  assert.deepEqual(differences([...expected, { ...expected[0], name: 'tsq_other' }], expected), ['tsq_other: not in the table']);
  const schema = expected.map((t, i) => (i === 3 ? { ...t, inputSchema: { ...t.inputSchema, required: ['query'] } } : t));
  assert.deepEqual(differences(schema, expected), ['tsq_run_query.inputSchema']);
});

test("the extension's tools name each other by their own names, MCP's by MCP's", () => {
  const run = languageModelTools().find((t) => t.name === 'tsq_check_query')!;
  assert.match(run.modelDescription, /before tsq_run_query\./);
  assert.match(AGENT_TOOLS.check_query.description(MCP_FRONT), /before run_query\./);
  // VS Code's tools give the model the text only: their descriptions do not promise a structured result
  assert.doesNotMatch(AGENT_TOOLS.run_query.description(VSCODE_FRONT), /structured/);
  assert.match(AGENT_TOOLS.run_query.description(MCP_FRONT), /structured result/);
});

test('tsq mcp lists every tool of the table its backend offers: title, description, annotations and schemas from the table', async () => {
  const unused = () => Promise.reject(new Error('not called'));
  const backend: AgentBackend = {
    getDataSources: unused,
    getColumns: unused,
    getColumnValues: unused,
    validate: unused,
    search: unused,
    loadCsv: unused,
    listOrgs: unused,
    switchOrg: unused,
    secrets: () => [],
  };
  const listed = async (b: AgentBackend) => {
    const [a, c] = InMemoryTransport.createLinkedPair();
    const server = buildMcpServer(b);
    const client = new Client({ name: 'test', version: '0' });
    await Promise.all([server.connect(a), client.connect(c)]);
    try {
      return (await client.listTools()).tools;
    } finally {
      await client.close();
      await server.close();
    }
  };
  const tools = await listed(backend);
  assert.deepEqual(tools.map((t) => t.name), AGENT_TOOL_NAMES);
  for (const t of tools) {
    const spec = AGENT_TOOLS[t.name as keyof typeof AGENT_TOOLS];
    assert.equal(t.title, spec.title);
    assert.equal(t.description, spec.description(MCP_FRONT));
    assert.deepEqual(t.annotations, { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: !spec.readOnly, idempotentHint: spec.readOnly, openWorldHint: true });
    const input = z.toJSONSchema(spec.input) as { properties?: object; required?: string[] };
    assert.deepEqual(Object.keys(t.inputSchema.properties ?? {}), Object.keys(input.properties ?? {}), t.name);
    assert.deepEqual(t.inputSchema.required ?? [], input.required ?? [], t.name);
    assert.deepEqual(Object.keys(t.outputSchema?.properties ?? {}), Object.keys((z.toJSONSchema(spec.output) as { properties: object }).properties), t.name);
  }
  // a backend that cannot load, list or switch Orgs is offered the tools that need none of that
  const { loadCsv: _l, listOrgs: _o, switchOrg: _s, ...readOnly } = backend;
  assert.deepEqual((await listed(readOnly)).map((t) => t.name), ['list_data_sources', 'describe_data_source', 'check_query', 'run_query']);
});

test('no source registers an agent tool by a name of its own (the table is the one declaration)', () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) files.push(p);
    }
  };
  for (const d of ['common/src', 'cli/src', 'client/src', 'server/src']) walk(join(root, d));
  const literal = /\bregisterTool\s*(<[^>]*>)?\(\s*['"`]/;
  const offenders = files.filter((f) => literal.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
  assert.deepEqual(offenders, []);
  // each tool's description is written in the table only (its first words would be in a second one)
  for (const name of AGENT_TOOL_NAMES) {
    const opening = AGENT_TOOLS[name].description(MCP_FRONT).slice(0, 70);
    assert.deepEqual(files.filter((f) => readFileSync(f, 'utf8').includes(opening)).map((f) => relative(root, f)), ['common/src/agent/toolTable.ts'], name);
  }
});

test("the extension reads a tool's input with the table's schema: a missing one is {}, a wrong field is named", () => {
  assert.deepEqual(readToolInput(AGENT_TOOLS.list_data_sources, undefined), { input: {} });
  assert.deepEqual(readToolInput(AGENT_TOOLS.run_query, { data_source: 'flights', query: '[origin]', extra: 1 }), { input: { data_source: 'flights', query: '[origin]' } });
  const wrong = readToolInput(AGENT_TOOLS.run_query, { data_source: 'flights', query: '[origin]', max_rows: 0 });
  assert.ok('error' in wrong && /max_rows/.test(wrong.error), JSON.stringify(wrong));
  const missing = readToolInput(AGENT_TOOLS.describe_data_source, {});
  assert.ok('error' in missing && /data_source/.test(missing.error), JSON.stringify(missing));
});
