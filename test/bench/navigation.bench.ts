/**
 * The workspace index and navigation on a workspace of 2,000 files (1,400 `.tsq`, 400 Answer TML, 200
 * Liveboard TML of three visualizations, and the model TML): `indexMs` the index of the 2,000 texts in
 * process (its anchor `parseMs`: the language core's parse and the TML reader alone over the same
 * texts, just before) and `indexRetainedMB` what it holds (after a forced GC, `--expose-gc`); over stdio through the
 * built server (test/protocol/lspClient.ts), `serverIndexMs` from `initialize` to the first answer that
 * needs the whole index (the scan of the folder from disk included), then `referencesMs` and `renameMs`
 * (p50/p95 of SAMPLES each, a column used in every file) beside the anchor `trivialMs`, a references
 * request on whitespace of the same connection. Targets: p95 ≤ 50 ms, indexing ≤ 2 s (report.ts).
 * Run: `npm run bench -- navigation`.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { WorkspaceIndex } from '../../common/src/languageService/workspaceIndex';
import { parseDocument } from '../../common/src/language/parser';
import { readTmlDocument } from '../../common/src/tml/answerTml';
import { LspClient } from '../protocol/lspClient';

const TSQ_FILES = 1400;
const ANSWERS = 400;
const LIVEBOARDS = 200;
const SAMPLES = 200;
const WARM_UP = 20;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const COLUMNS = ['revenue', 'region', 'cost', 'margin', 'order date', 'product', 'store', 'units'];

function percentiles(samples: number[]): { p50: number; p95: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => r2(s[Math.min(s.length - 1, Math.floor(q * s.length))]!);
  return { p50: at(0.5), p95: at(0.95), n: s.length };
}

/** The files of the workspace, by path: every file uses `revenue` of Retail Sales (a `.tsq` file in one query of five), every `.tsq` Marketing's too. */
function workspace(): Map<string, string> {
  const files = new Map<string, string>();
  const col = (i: number) => COLUMNS[i % COLUMNS.length]!;
  for (let i = 0; i < TSQ_FILES; i++) {
    const queries = Array.from({ length: 5 }, (_, q) => `${q === 0 ? '[revenue] ' : ''}[${col(i + q + 1)}] sum [${col(i + q + 2)}] by [region].west\n`).join('\n');
    files.set(`queries/q${i}.tsq`, `@datasource 'Retail Sales'\n-- report ${i}\n${queries}\n@datasource 'Marketing'\n[revenue] [campaign]\n`);
  }
  const answer = (name: string, indent: string, i: number) => `${indent}name: ${name}\n${indent}tables:\n${indent}- id: Retail Sales\n${indent}  name: Retail Sales\n${indent}search_query: "[revenue] [${col(i)}] [Retail Sales::${col(i + 1)}] > 5"\n${indent}display_mode: TABLE_MODE\n`;
  for (let i = 0; i < ANSWERS; i++) files.set(`answers/a${i}.answer.tml`, `guid: null\nanswer:\n${answer(`Answer ${i}`, '  ', i)}`);
  for (let i = 0; i < LIVEBOARDS; i++) {
    const vizs = Array.from({ length: 3 }, (_, v) => `  - id: Viz_${v}\n    answer:\n${answer(`Viz ${i}.${v}`, '      ', i + v)}`).join('');
    files.set(`boards/b${i}.liveboard.tml`, `guid: null\nliveboard:\n  name: Board ${i}\n  visualizations:\n${vizs}`);
  }
  files.set('models/retail.model.tml', `guid: null\nmodel:\n  name: Retail Sales\n  columns:\n${COLUMNS.map((c) => `  - name: ${c}\n    column_id: sales::${c}\n`).join('')}`);
  return files;
}

/** The in-process index of the texts: time and retained memory. */
function inProcess(files: Map<string, string>): Record<string, unknown> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const used = () => {
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  // the anchor: the language core's parse and the TML reader alone over the same texts, first (cold) too
  let t = performance.now();
  for (const [path, text] of files) {
    if (path.endsWith('.tsq')) void parseDocument(text).queries.length;
    else void readTmlDocument(text).doc.contents;
  }
  const parseMs = performance.now() - t;
  const before = used();
  t = performance.now();
  const index = new WorkspaceIndex();
  for (const [path, text] of files) index.set(`file:///w/${path}`, text);
  const indexMs = performance.now() - t;
  const retained = used() - before;
  const references = index.references({ kind: 'column', column: 'revenue', dataSource: 'Retail Sales' }, true).length;
  return { indexMs: r2(indexMs), parseMs: r2(parseMs), indexRetainedMB: gc ? r2(retained / 2 ** 20) : undefined, textMB: r2([...files.values()].reduce((n, s) => n + s.length, 0) / 2 ** 20), references };
}

export async function run(): Promise<Record<string, unknown>> {
  const files = workspace();
  const local = inProcess(files);
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-nav-'));
  try {
    for (const [path, text] of files) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const t = performance.now();
    const { client } = await LspClient.start({ workspaceFolders: [pathToFileURL(dir).href] });
    try {
      await client.connection.sendRequest('workspace/symbol', { query: 'Retail' });
      const serverIndexMs = performance.now() - t;
      const uri = pathToFileURL(join(dir, 'queries/q7.tsq')).href;
      const text = files.get('queries/q7.tsq')!;
      const on = { textDocument: { uri }, position: { line: 2, character: 2 } };
      const blank = { textDocument: { uri }, position: { line: 3, character: 0 } };
      const time = async (f: () => Promise<unknown>) => {
        const s = performance.now();
        await f();
        return performance.now() - s;
      };
      const refs = () => client.connection.sendRequest<unknown[]>('textDocument/references', { ...on, context: { includeDeclaration: true } });
      const rename = () => client.connection.sendRequest('textDocument/rename', { ...on, newName: 'net revenue' });
      const trivial = () => client.connection.sendRequest('textDocument/references', { ...blank, context: { includeDeclaration: true } });
      for (let i = 0; i < WARM_UP; i++) await Promise.all([refs(), rename(), trivial()]);
      const r: number[] = [], n: number[] = [], a: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        a.push(await time(trivial));
        r.push(await time(refs));
        n.push(await time(rename));
      }
      const locations = (await refs()).length;
      if (!text.includes('[revenue]') || locations < files.size) throw new Error(`references answered ${locations} locations`);
      return { files: files.size, ...local, serverIndexMs: r2(serverIndexMs), locations, referencesMs: percentiles(r), renameMs: percentiles(n), trivialMs: percentiles(a) };
    } finally {
      await client.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
