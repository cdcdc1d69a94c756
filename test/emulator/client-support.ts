// Shared set-up of the client-*.test.ts files: a live emulator on an ephemeral port (demo data plus an
// optional seed folder), clients for the demo users, and direct DuckDB access to the emulator's database
// for comparing answers. Not a test file itself.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/src/app';
import { AnalyticsServiceClient, type AnalyticsServiceClientOptions } from '../../common/src/api';

/** The demo users (emulator/src/demo.ts). */
export const ADMIN = { username: 'tsadmin', password: 'admin' };
export const ANALYST = { username: 'analyst', password: 'analyst' };

/** The DuckDB name of the demo flights table (emulator/src/engine.ts naming). */
export const FLIGHTS_SQL = '"demo.engine_default_schema"."flights"';

export interface Live {
  emu: RunningEmulator;
  dataDir: string;
  /** A client for a user (default the administrator); closed by `stop`. */
  client(user?: { username: string; password: string }, extra?: Partial<AnalyticsServiceClientOptions>): AnalyticsServiceClient;
  /** Runs SQL directly on the emulator's DuckDB database; rows as JSON-ish objects (bigints as numbers). */
  sql(query: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Stops the emulator and closes every client; removes the data folder unless `keepData`. */
  stop(keepData?: boolean): Promise<void>;
}

/** A seed table for `model.json` (emulator/src/seed.ts `SeedTable`). */
export interface SeedTableSpec {
  name: string;
  database: string;
  schema?: string;
  columns: { name: string; dataType: string; kind?: string }[];
}

/** Starts an emulator with the demo data (and `tables` through a seed folder) in a fresh or given data folder. */
export async function startLive(opts: { tables?: SeedTableSpec[]; dataDir?: string; options?: EmulatorOptions } = {}): Promise<Live> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tsq-client-live-'));
  let seed: string | undefined;
  if (opts.tables) {
    seed = join(dataDir, 'seed');
    mkdirSync(seed, { recursive: true });
    writeFileSync(join(seed, 'model.json'), JSON.stringify({ tables: opts.tables.map((t) => ({ ...t, sharedWith: ['Analysts'] })) }));
  }
  const emu = await startEmulator({ port: 0, dataDir: join(dataDir, 'state'), demo: true, seed, now: '2002-01-15T12:00:00Z', ...opts.options });
  const clients: AnalyticsServiceClient[] = [];
  return {
    emu,
    dataDir,
    client(user = ADMIN, extra = {}) {
      const c = new AnalyticsServiceClient({ url: emu.url, loadUrl: emu.loadUrl, ...user, ...extra });
      clients.push(c);
      return c;
    },
    async sql(query, params) {
      const c = await emu.ctx.connect();
      try {
        const r = await c.runAndReadAll(query, params as never);
        return r.getRowObjectsJS().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
      } finally {
        c.closeSync();
      }
    },
    async stop(keepData = false) {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await emu.close();
      if (!keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Number of rows of a table, straight from DuckDB. */
export async function countRows(live: Live, sqlName: string): Promise<number> {
  const [r] = await live.sql(`SELECT count(*)::INTEGER AS n FROM ${sqlName}`);
  return Number(r.n);
}
