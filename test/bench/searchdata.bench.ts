/**
 * searchdata of the emulator started in-process (`startEmulator`, demo data), over HTTP with plain
 * fetch, next to the very SQL it compiles run directly on the same DuckDB database (values inlined, no
 * HTTP, no paging). Per query: median ms of 15 runs each; `ratio` = HTTP / direct, `overheadMs` = HTTP −
 * direct; the target is HTTP ≤ 1.5 × direct + 5 ms (`withinTarget`). Run: `npm run bench -- searchdata`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../../emulator/src/app';
import { MetadataStore } from '../../emulator/src/metadataStore';
import { stableGuid } from '../../emulator/src/guid';
import { compileSearch } from '../../emulator/src/searchdata/compile';
import { parseQuery } from '../../common/src/language/parser';
import { DEMO_QUERIES } from '../emulator/client-queries';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;

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
    const queries: Record<string, unknown>[] = [];
    try {
      for (const q of DEMO_QUERIES) {
        const compiled = compileSearch({ clauses: parseQuery(q.query).query!.clauses, columns: ds.columns, table: ds.sqlName, now: emu.ctx.now() });
        let i = 0;
        const direct = compiled.sql.replace(/\?/g, () => {
          const p = compiled.params[i++]!;
          return typeof p === 'string' ? `'${p.replace(/'/g, "''")}'` : String(p);
        });
        const url = `${emu.url}/callosum/v1/tspublic/v1/searchdata?${new URLSearchParams({ query_string: q.query, data_source_guid: flights })}`;
        const http: number[] = [];
        const db: number[] = [];
        for (let k = 0; k < 16; k++) {
          let t = performance.now();
          const r = await fetch(url, { method: 'POST', headers: { cookie } });
          await r.json();
          if (r.status !== 200) throw new Error(`${q.query}: HTTP ${r.status}`);
          if (k > 0) http.push(performance.now() - t);
          t = performance.now();
          (await conn.runAndReadAll(direct)).getRows();
          if (k > 0) db.push(performance.now() - t);
        }
        const h = median(http);
        const d = median(db);
        queries.push({ query: q.query, httpMs: r2(h), directMs: r2(d), ratio: r2(h / d), overheadMs: r2(h - d), withinTarget: h <= 1.5 * d + 5 });
      }
    } finally {
      conn.closeSync();
    }
    return { queries, allWithinTarget: queries.every((q) => q.withinTarget), medianOverheadMs: r2(median(queries.map((q) => q.overheadMs as number))) };
  } finally {
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
