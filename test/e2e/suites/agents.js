// @ts-check
// In-host suite of the agent tools against the emulator started with --demo: connects as tsadmin,
// then calls each of the extension's language-model tools through `vscode.lm.invokeTool`, as agent
// mode does: list the data sources, describe flights, check a query with a misspelled column (the
// language server's diagnostic and its suggestion come back), check the fixed query, and run it once the
// person agreed to send rows to the model (test/e2e/agents.test.ts answers the dialog: Yes, then Cancel).
// Values must come back inside the tools' data blocks. Environment: TSQ_E2E_EMULATOR_URL (required).
'use strict';
const vscode = require('vscode');
const { defineSuite, waitFor, check, connectAsTsadmin } = require('./lib');

const TOOLS = ['tsq_list_data_sources', 'tsq_describe_data_source', 'tsq_check_query', 'tsq_run_query'];

/**
 * Calls a tool and returns its text and the values of its data blocks (common/src/agent/data.ts).
 * @param {string} name @param {object} input
 * @returns {Promise<{ text: string, blocks: any[] }>}
 */
async function invoke(name, input) {
  const source = new vscode.CancellationTokenSource();
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, source.token);
  const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');
  const blocks = [...text.matchAll(/^<<<tsq-data ([0-9a-f]{16})>>>\n(.*)\n<<<end of tsq-data \1>>>$/gm)].map((m) => JSON.parse(m[2]));
  return { text, blocks };
}

module.exports = defineSuite([
  {
    name: 'the four tools are registered',
    async fn() {
      const names = await waitFor(() => {
        const found = vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('tsq_'));
        return TOOLS.every((t) => found.includes(t)) ? found : undefined;
      }, 'the tsq_ tools in vscode.lm.tools');
      check(names.length === 4, 'exactly the four read tools', names);
    },
  },
  connectAsTsadmin,
  {
    name: 'tsq_list_data_sources and tsq_describe_data_source answer from the catalog',
    async fn() {
      const list = await invoke('tsq_list_data_sources', {});
      check(list.blocks.length === 1 && list.blocks[0].some((/** @type {any} */ d) => d.name === 'flights'), 'flights is listed in a data block', list.text);
      const described = await invoke('tsq_describe_data_source', { data_source: 'flights' });
      const columns = described.blocks[0]?.columns ?? [];
      const origin = columns.find((/** @type {any} */ c) => c.name === 'origin');
      const delay = columns.find((/** @type {any} */ c) => c.name === 'delay');
      check(origin?.kind === 'ATTRIBUTE' && origin.sampleValues.length > 0, 'origin is an attribute with sample values', described.text);
      check(delay?.kind === 'MEASURE' && delay.defaultAggregation === 'SUM', 'delay is a measure summed by default', described.text);
    },
  },
  {
    name: 'tsq_check_query reports the misspelled column with its suggestion, then passes the fixed query',
    async fn() {
      const bad = await invoke('tsq_check_query', { data_source: 'flights', query: '[orign] [delay] top 3 sort by [delay] descending' });
      const diagnostics = bad.blocks[0] ?? [];
      const unknown = diagnostics.find((/** @type {any} */ d) => d.code === 'tsq.unknownColumn');
      check(unknown && unknown.suggestions[0] === 'origin' && unknown.start.line === 0 && unknown.start.character === 1, 'the unknown column at line 0, character 1, with origin suggested', bad.text);
      const good = await invoke('tsq_check_query', { data_source: 'flights', query: '[origin] [delay] top 3 sort by [delay] descending' });
      check(/is valid/.test(good.text) && good.blocks.length === 0, 'the fixed query is valid', good.text);
    },
  },
  {
    name: 'tsq_run_query answers the rows',
    async fn() {
      const run = await invoke('tsq_run_query', { data_source: 'flights', query: '[origin] [delay] top 3 sort by [delay] descending' });
      check(JSON.stringify(run.blocks[0]) === JSON.stringify({ columnNames: ['origin', 'Total delay'], rows: [['ORD', 98651], ['DFW', 80732], ['ATL', 69046]] }), 'the three rows', run.text);
    },
  },
  {
    name: 'tsq_run_query is refused when the person says no to sending rows to the model',
    async fn() {
      const refused = await invoke('tsq_run_query', { data_source: 'flights', query: '[destination] [delay] top 2' }).then(
        () => 'answered',
        (/** @type {unknown} */ e) => (e instanceof Error ? e.message : String(e)),
      );
      check(refused !== 'answered', 'no answer without the confirmation', refused);
    },
  },
  {
    name: 'an unknown data source fails the tool with a message for the model',
    async fn() {
      const failed = await invoke('tsq_describe_data_source', { data_source: 'no such source' }).then(
        () => undefined,
        (/** @type {unknown} */ e) => (e instanceof Error ? e.message : String(e)),
      );
      check(typeof failed === 'string' && /list_data_sources/.test(failed), 'the error names list_data_sources', failed);
    },
  },
]);
