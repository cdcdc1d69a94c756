/**
 * searchdata of the emulator started in-process (`startEmulator`, demo data), over HTTP with plain
 * fetch, next to the very SQL it compiles run directly on the same DuckDB database (values inlined, no
 * HTTP, no paging). Per query: median ms of 15 runs each; `ratio` = HTTP / direct, `overheadMs` = HTTP −
 * direct; the target is HTTP ≤ 1.5 × direct + 5 ms (`withinTarget`). The same for searches of the demo model
 * (`modelQueries`: its joins in the SQL of both sides). Run: `npm run bench -- searchdata`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { besideDuckDb, median, r2 } from './setup';
import { startEmulator } from '../../emulator/src/app';
import { MetadataStore } from '../../emulator/src/metadataStore';
import { stableGuid } from '../../emulator/src/guid';
import { compileSearch, type CompiledQuery } from '../../emulator/src/searchdata/compile';
import { MODEL_RELATION, modelView } from '../../emulator/src/searchdata/model';
import { parseQuery } from '../../common/src/language/parser';
import { DEMO_QUERIES } from '../emulator/client-queries';

/**
 * Searches of the demo model `Flights Model`: one table, the origin path, both paths with a filter, a count by
 * destination, and its formula column `Delayed Share` by origin state (computed per group, over the join).
 */
const MODEL_QUERIES = ['[Origin] [Delay]', '[Origin State] [Distance]', "[Origin State] [Destination State] [Delay] [Origin State] = 'WA'", '[Destination City] count [Departure] top 10', '[Origin State] [Delayed Share]'];


export async function run(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tsq-bench-searchdata-'));
  const emu = await startEmulator({ port: 0, dataDir, demo: true, now: '2001-06-15T12:00:00Z' });
  try {
    const login = await fetch(`${emu.url}/callosum/v1/tspublic/v1/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=tsadmin&password=admin' });
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const flights = stableGuid('table', 'demo', 'engine_default_schema', 'flights');
    // The compiled SQL, with its bound values inlined, as someone would run it in DuckDB directly.
    const catalog = new MetadataStore(dataDir);
    const ds = catalog.dataSource(flights)!;
    const conn = await emu.ctx.connect();
    const inline = (compiled: CompiledQuery): string => {
      let i = 0;
      return compiled.sql.replace(/\?/g, () => {
        const p = compiled.params[i++]!;
        return typeof p === 'string' ? `'${p.replace(/'/g, "''")}'` : String(p);
      });
    };
    /** Medians of 15 runs (after one warm-up) of the query over HTTP and of its SQL in DuckDB. */
    const measure = async (query: string, guid: string, direct: string): Promise<Record<string, unknown>> => {
      const url = `${emu.url}/callosum/v1/tspublic/v1/searchdata?${new URLSearchParams({ query_string: query, data_source_guid: guid })}`;
      const { httpMs: h, directMs: d } = await besideDuckDb(async () => {
        const r = await fetch(url, { method: 'POST', headers: { cookie } });
        await r.json();
        if (r.status !== 200) throw new Error(`${query}: HTTP ${r.status}`);
      }, conn, direct);
      return { query, httpMs: r2(h), directMs: r2(d), ratio: r2(h / d), overheadMs: r2(h - d), withinTarget: h <= 1.5 * d + 5 };
    };
    const queries: Record<string, unknown>[] = [];
    const modelQueries: Record<string, unknown>[] = [];
    try {
      for (const q of DEMO_QUERIES) {
        const compiled = compileSearch({ clauses: parseQuery(q.query).query!.clauses, columns: ds.columns, table: ds.sqlName, now: emu.ctx.now() });
        queries.push(await measure(q.query, flights, inline(compiled)));
      }
      // the demo model: the SQL searchdata runs there (the model's relation, joined as the query needs, in front)
      const model = catalog.dataSource(stableGuid('worksheet', 'Flights Model'))!;
      for (const query of MODEL_QUERIES) {
        const view = modelView(model, catalog);
        const compiled = view.wrap(compileSearch({ clauses: parseQuery(query).query!.clauses, columns: view.columns, table: MODEL_RELATION, now: emu.ctx.now(), tablePaths: view.tablePaths }));
        modelQueries.push(await measure(query, model.id, inline(compiled)));
      }
    } finally {
      conn.closeSync();
    }
    const medianOf = (xs: Record<string, unknown>[]): number => r2(median(xs.map((q) => q.overheadMs as number)));
    return { queries, allWithinTarget: queries.every((q) => q.withinTarget), medianOverheadMs: medianOf(queries), modelQueries, modelMedianOverheadMs: medianOf(modelQueries) };
  } finally {
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
