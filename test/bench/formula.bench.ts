/**
 * Answers with formulas on the emulator started in-process (demo data): `metadata/answer/data` of an
 * answer whose search names its formulas (a ratio per group, a row-level measure, a text attribute, a
 * rank), over HTTP, next to the very SQL it compiles run directly on the same DuckDB database; beside
 * them answers with no formula on the same route (`baseline`). Per answer: median ms of 15 runs each;
 * `overheadMs` = HTTP − direct. Run: `npm run bench -- formula`.
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


/** The answers: formulas and the search naming them. */
const ANSWERS = [
  { formulas: [{ id: 'formula_Delay per mile', name: 'Delay per mile', expr: 'sum ( [delay] ) / sum ( [distance] )' }], query: '[origin] [formula_Delay per mile]' },
  { formulas: [{ id: 'formula_Late', name: 'Late', expr: "if ( [delay] > 15 ) then 'late' else 'on time'" }, { id: 'formula_Miles', name: 'Miles', expr: '[distance] * 1.0', properties: { column_type: 'MEASURE' } }], query: '[Late] [Miles]' },
  { formulas: [{ id: 'formula_Rank', name: 'Rank', expr: "rank ( sum ( [delay] ) , 'desc' )" }], query: '[destination] [Rank] top 10' },
];
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
    try {
      for (const [n, a] of [...ANSWERS, ...BASELINE].entries()) {
        const tml = { guid: null, answer: { name: `Formula bench ${n}`, tables: [{ id: 'flights', name: 'flights' }], ...(a.formulas.length ? { formulas: a.formulas } : {}), search_query: a.query } };
        const imported = await post('/metadata/tml/import', { metadata_tmls: [JSON.stringify(tml)], import_policy: 'PARTIAL', create_new: true });
        const id = imported[0]?.response?.header?.id_guid as string | undefined;
        if (!id) throw new Error(`import failed: ${JSON.stringify(imported)}`);
        // the compiled SQL, with its bound values inlined, as someone would run it in DuckDB directly
        const ds = withFormulaColumns(catalog.dataSource(flights)!, a.formulas);
        const compiled = compileSearch({ clauses: parseQuery(a.query).query!.clauses, columns: ds.columns, table: ds.sqlName, now: emu.ctx.now() });
        let i = 0;
        const direct = compiled.sql.replace(/\?/g, () => {
          const p = compiled.params[i++]!;
          return typeof p === 'string' ? `'${p.replace(/'/g, "''")}'` : String(p);
        });
        const { httpMs: h, directMs: d } = await besideDuckDb(async () => {
          const r = await post('/metadata/answer/data', { metadata_identifier: id, record_size: -1 });
          if (!r.contents) throw new Error(`${a.query}: ${JSON.stringify(r)}`);
        }, conn, direct);
        answers.push({ query: a.query, formulas: a.formulas.length, httpMs: r2(h), directMs: r2(d), overheadMs: r2(h - d) });
      }
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
    };
  } finally {
    await emu.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
