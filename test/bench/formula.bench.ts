/**
 * Answers with formulas on the emulator started in-process (demo data): `metadata/answer/data` of an
 * answer whose search names its formulas (a ratio per group, a row-level measure, a text attribute, a
 * rank), over HTTP, next to the very SQL it compiles run directly on the same DuckDB database; beside
 * them answers with no formula on the same route (`baseline`). Per answer: median ms of 15 runs each;
 * `overheadMs` = HTTP − direct. And `model`: v1 searchdata on a model with formula columns (the demo's
 * Flights Model and its Delayed Share, imported again with a ratio, a row-level attribute and a group_sum)
 * beside the SQL it runs (the model's relation in front) in DuckDB, and in the same rounds that SQL read as the
 * emulator reads it and a trivial signed-in request (`session/orgs`), a round trip's fixed cost. `npm run bench -- formula`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { besideDuckDb, median, r2 } from './setup';
import { startEmulator } from '../../emulator/src/app';
import { MetadataStore } from '../../emulator/src/metadataStore';
import { stableGuid } from '../../emulator/src/guid';
import { compileSearch } from '../../emulator/src/searchdata/compile';
import { withFormulaColumns } from '../../emulator/src/searchdata/formulaColumns';
import { parseQuery } from '../../common/src/language/parser';
import { parse } from 'yaml';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { MODEL_RELATION, modelView } from '../../emulator/src/searchdata/model';
import type { CompiledQuery } from '../../emulator/src/searchdata/compile';


/** The answers: formulas and the search naming them. */
const ANSWERS = [
  { formulas: [{ id: 'formula_Delay per mile', name: 'Delay per mile', expr: 'sum ( [delay] ) / sum ( [distance] )' }], query: '[origin] [formula_Delay per mile]' },
  { formulas: [{ id: 'formula_Late', name: 'Late', expr: "if ( [delay] > 15 ) then 'late' else 'on time'" }, { id: 'formula_Miles', name: 'Miles', expr: '[distance] * 1.0', properties: { column_type: 'MEASURE' } }], query: '[Late] [Miles]' },
  { formulas: [{ id: 'formula_Rank', name: 'Rank', expr: "rank ( sum ( [delay] ) , 'desc' )" }], query: '[destination] [Rank] top 10' },
];
/** The formula columns of the benched model, added to the demo's Flights Model. */
const MODEL_FORMULAS = [
  { id: 'formula_Delay per Mile', name: 'Delay per Mile', expr: 'sum ( [Delay] ) / sum ( [Distance] )' },
  { id: 'formula_Late', name: 'Late', expr: "if ( [Delay] > 15 ) then 'late' else 'on time'" },
  { id: 'formula_State Share', name: 'State Share', expr: 'sum ( [Delay] ) / group_sum ( [Delay] , [Origin State] )' },
];
/** Searches of that model naming its formula columns: per group, over a join, as an attribute, at a grain of their own. */
const MODEL_QUERIES = ['[Origin State] [Delayed Share]', "[Destination State] [Delay per Mile] [Origin State] = 'WA'", '[Late] [Delay]', "[Origin State] [Origin] [State Share] [Origin State] = 'CA'", '[Origin] [Delayed Share] top 10'];

/** The compiled SQL with its bound values inlined, as someone would run it in DuckDB directly. */
function inline(compiled: CompiledQuery): string {
  let i = 0;
  return compiled.sql.replace(/\?/g, () => {
    const p = compiled.params[i++]!;
    return typeof p === 'string' ? `'${p.replace(/'/g, "''")}'` : String(p);
  });
}

/** The same route for answers with no formula, the baseline of the overhead: an answer's own cost, formulas aside. */
const BASELINE = [{ formulas: [], query: '[origin] [delay]' }, { formulas: [], query: '[destination] [delay] top 10' }];

export async function run(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-bench-formula-'));
  const emu = await startEmulator({ port: 0, dataDir, demo: true, now: '2001-06-15T12:00:00Z' });
  try {
    const auth = await fetch(`${emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin' }) });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${((await auth.json()) as { token: string }).token}` };
    const post = async (path: string, body: unknown): Promise<any> => (await fetch(`${emu.url}/api/rest/2.0${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    const flights = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
    const catalog = new MetadataStore(dataDir);
    const conn = await emu.ctx.connect();
    const answers: Record<string, unknown>[] = [];
    const model: Record<string, unknown>[] = [];
    try {
      for (const [n, a] of [...ANSWERS, ...BASELINE].entries()) {
        const tml = { guid: null, answer: { name: `Formula bench ${n}`, tables: [{ id: 'flights', name: 'flights' }], ...(a.formulas.length ? { formulas: a.formulas } : {}), search_query: a.query } };
        const imported = await post('/metadata/tml/import', { metadata_tmls: [JSON.stringify(tml)], import_policy: 'PARTIAL', create_new: true });
        const id = imported[0]?.response?.header?.id_guid as string | undefined;
        if (!id) throw new Error(`import failed: ${JSON.stringify(imported)}`);
        // the compiled SQL, with its bound values inlined, as someone would run it in DuckDB directly
        const ds = withFormulaColumns(catalog.dataSource(flights)!, a.formulas);
        const compiled = compileSearch({ clauses: parseQuery(a.query).query!.clauses, columns: ds.columns, table: ds.sqlName, now: emu.ctx.now() });
        const direct = inline(compiled);
        const { httpMs: h, directMs: d } = await besideDuckDb(async () => {
          const r = await post('/metadata/answer/data', { metadata_identifier: id, record_size: -1 });
          if (!r.contents) throw new Error(`${a.query}: ${JSON.stringify(r)}`);
        }, conn, direct);
        answers.push({ query: a.query, formulas: a.formulas.length, httpMs: r2(h), directMs: r2(d), overheadMs: r2(h - d) });
      }
      model.push(...(await modelSearches(emu.url, post, dataDir, conn, emu.ctx.now())));
    } finally {
      conn.closeSync();
    }
    const own = answers.filter((a) => (a.formulas as number) > 0);
    const base = answers.filter((a) => a.formulas === 0);
    return {
      answers: own,
      baseline: base,
      medianOverheadMs: r2(median(own.map((a) => a.overheadMs as number))),
      medianDirectMs: r2(median(own.map((a) => a.directMs as number))),
      baselineMedianOverheadMs: r2(median(base.map((a) => a.overheadMs as number))),
      model,
      modelMedianOverheadMs: r2(median(model.map((q) => q.overheadMs as number))),
      modelMedianDirectMs: r2(median(model.map((q) => q.directMs as number))),
      modelMedianTrivialMs: r2(median(model.map((q) => q.trivialMs as number))),
      modelMedianDirectChunkedMs: r2(median(model.map((q) => q.directChunkedMs as number))),
      modelMedianOverheadOverChunkedMs: r2(median(model.map((q) => q.overheadOverChunkedMs as number))),
      modelOverheadToTrivial: r2(median(model.map((q) => q.overheadMs as number)) / median(model.map((q) => q.trivialMs as number))),
    };
  } finally {
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * v1 searchdata on the demo's Flights Model imported again with `MODEL_FORMULAS`, each of `MODEL_QUERIES`
 * beside its SQL in DuckDB, the same SQL read as the emulator reads it (`directChunked`) and the trivial request.
 * @returns per query: medians over 15 runs, the overhead, `directChunkedMs` and the trivial request (`trivialMs`)
 */
async function modelSearches(url: string, post: (path: string, body: unknown) => Promise<any>, dataDir: string, conn: DuckDBConnection, now: Date): Promise<Record<string, unknown>[]> {
  const exported = await post('/metadata/tml/export', { metadata: [{ identifier: stableGuid('worksheet', 'Flights Model') }], edoc_format: 'YAML' });
  const w = parse(exported[0].edoc).worksheet as Record<string, any>;
  const tml = { worksheet: { ...w, name: 'Formula Bench Model', formulas: [...w.formulas, ...MODEL_FORMULAS], worksheet_columns: [...w.worksheet_columns, ...MODEL_FORMULAS.map((f) => ({ name: f.name, formula_id: f.id }))] } };
  const imported = await post('/metadata/tml/import', { metadata_tmls: [JSON.stringify(tml)], import_policy: 'PARTIAL', create_new: true });
  const guid = imported[0]?.response?.header?.id_guid as string | undefined;
  if (!guid) throw new Error(`model import failed: ${JSON.stringify(imported)}`);
  const login = await fetch(`${url}/callosum/v1/tspublic/v1/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=tsadmin&password=admin' });
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const catalog = new MetadataStore(dataDir);
  const ds = catalog.dataSource(guid)!;
  // the anchor of the fixed cost: a trivial signed-in request of the same API, client and session
  const trivial = `${url}/callosum/v1/tspublic/v1/session/orgs`;
  const out: Record<string, unknown>[] = [];
  for (const query of MODEL_QUERIES) {
    const view = modelView(ds, catalog);
    const compiled = view.wrap(compileSearch({ clauses: parseQuery(query).query!.clauses, columns: view.columns, table: MODEL_RELATION, now, tablePaths: view.tablePaths }));
    const at = `${url}/callosum/v1/tspublic/v1/searchdata?${new URLSearchParams({ query_string: query, data_source_guid: guid })}`;
    const direct = inline(compiled);
    const { httpMs: h, directMs: d, extraMs } = await besideDuckDb(async () => {
      const r = await fetch(at, { method: 'POST', headers: { cookie } });
      await r.json();
      if (r.status !== 200) throw new Error(`${query}: HTTP ${r.status}`);
    }, conn, direct, {
      chunked: () => directChunked(conn, direct),
      trivial: async () => {
        const r = await fetch(trivial, { headers: { cookie } });
        await r.json();
        if (r.status !== 200) throw new Error(`session/orgs: HTTP ${r.status}`);
      },
    });
    const { chunked, trivial: t } = extraMs;
    out.push({ query, httpMs: r2(h), directMs: r2(d), overheadMs: r2(h - d), trivialMs: r2(t!), directChunkedMs: r2(chunked!), overheadOverChunkedMs: r2(h - chunked!) });
  }
  return out;
}

/**
 * The same SQL run directly as the emulator reads a result (emulator/src/searchdata/run.ts `rowsOf`: the
 * materialized result's chunks read with `getChunk`, not awaited one by one as `runAndReadAll` does), so the
 * report can tell what part of the overhead is that reading.
 */
async function directChunked(conn: DuckDBConnection, sql: string): Promise<void> {
  const result = await conn.run(sql);
  const rows: DuckDBValue[][] = [];
  for (let i = 0, n = result.chunkCount; i < n; i++) result.getChunk(i).appendToRows(rows);
}
