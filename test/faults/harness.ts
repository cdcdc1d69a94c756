// The fault-injection harness of the load path (`npm run faults`, and a short run in test/faults/faults.test.ts).
//
// The real client pipeline (common/src/load/pipeline.ts `runLoad`) loads CSV files of rows with unique ids
// into the emulator, which runs as a child process behind a TCP proxy. While loads run, faults are injected:
//   kill-random  the emulator is killed with SIGKILL at a random instant (then started again on its data folder)
//   kill-step    the emulator kills itself at a step boundary of a cycle (emulator/src/load/crash.ts), among
//                them between the engine's COMMIT and the status record
//   tcp-cut      the proxy cuts the traffic at a random byte offset
//   session-401  the emulator forgets every load-API session (SIGUSR2), so the next call is answered 401
//   cancel       the user cancels the load at a random instant
//   concurrent   three loads into one table at once, with a random kill among them
// After each fault, the table is compared row by row (by the unique ids) with what the client was told:
// told OK → every row once; told "the table was not changed" → none; told "unknown" → all or none, as the
// cycle's final status says. Lost, duplicated and fabricated rows are counted. Not a test file itself.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsServiceClient, type LoadDefinition } from '../../common/src/api';
import { LoadError, runLoad, type LoadResult } from '../../common/src/load/pipeline';
import { stableGuid } from '../../emulator/src/guid';
import { CRASH_POINTS, type CrashPoint } from '../../emulator/src/load/crash';
import { EmulatorProcess } from './emulatorProcess';
import { FaultProxy } from './proxy';

/** The kinds of faults, in the order a run cycles through them. */
export const FAULT_KINDS = ['kill-random', 'kill-step', 'tcp-cut', 'session-401', 'cancel', 'concurrent'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What a run found. */
export interface FaultReport {
  faults: number;
  /** Faults injected per kind (`kill-step` also per step, as `kill-step:<point>`). */
  byKind: Record<string, number>;
  loads: number;
  /** What the client was told: ok, unchanged (failed, cancelled, refused) or unknown. */
  verdicts: { ok: number; unchanged: number; unknown: number };
  rowsSent: number;
  rowsExpected: number;
  lost: number;
  duplicated: number;
  fabricated: number;
  /** Loads told OK whose rows_written differed from the rows of the file. */
  misreported: number;
  /** `chunk-*` or `staged-*` files left in ended cycles' folders at the end. */
  leftoverFiles: number;
  /** Descriptions of the first wrong rows and loads. */
  problems: string[];
  ms: number;
}

/** Options of `runFaults`. */
export interface FaultOptions {
  /** Faults to inject (default 50). */
  faults?: number;
  /** Seed of the pseudo-random choices (default 1). */
  seed?: number;
  /** A line per round. */
  log?: (line: string) => void;
}

const USER = { username: 'faulter', password: 'faulter-secret' };
const TABLE = { database: 'faults', schema: 'engine_default_schema', table: 'rows' };

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The emulator process, started again (without any armed crash) whenever it dies. */
class Supervisor {
  emu: EmulatorProcess | undefined;
  private starting: Promise<void> | undefined;
  private closing = false;
  /** Deaths we did not cause by `kill` (crash points). */
  selfKills = 0;
  ourKill = false;

  constructor(
    private readonly dataDir: string,
    private readonly seed: string,
    readonly crashFile: string,
    private readonly random: () => number,
  ) {}

  port(): number | undefined {
    return this.emu?.alive ? this.emu.port : undefined;
  }

  start(): Promise<void> {
    this.starting ??= (async () => {
      writeFileSync(this.crashFile, '');
      const emu = await EmulatorProcess.start({ dataDir: this.dataDir, seed: this.seed, env: { TSQ_EMULATOR_FAULTS: '1', TSQ_EMULATOR_CRASH_FILE: this.crashFile } });
      this.emu = emu;
      this.starting = undefined;
      void emu.exited.then(() => {
        writeFileSync(this.crashFile, ''); // never armed again after a restart
        if (!this.ourKill) this.selfKills++;
        this.ourKill = false;
        if (this.closing) return;
        // the service comes back after a short outage
        setTimeout(() => void this.start(), 20 + this.random() * 250);
      });
    })();
    return this.starting;
  }

  /** Waits until the emulator runs. */
  async up(): Promise<void> {
    for (;;) {
      if (this.emu?.alive && !this.starting) return;
      if (this.starting) await this.starting;
      else await new Promise((r) => setTimeout(r, 20));
    }
  }

  async kill(): Promise<void> {
    const emu = this.emu;
    if (!emu?.alive) return;
    this.ourKill = true;
    await emu.kill();
  }

  forgetSessions(): void {
    if (this.emu?.alive) this.emu.child.kill('SIGUSR2');
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.starting?.catch(() => undefined);
    await this.emu?.stop();
  }
}

/** One load of a round: its file, its rows, and what the client was told. */
interface LoadPlan {
  path: string;
  rows: Map<number, string>;
  controller: AbortController;
  verdict?: { kind: 'ok'; result: LoadResult } | { kind: 'unchanged' | 'unknown'; error: unknown; cycleId?: string };
}

const PIECES = ['a', 'b', 'Zürich', '日本', '😀', ' ', ',', '"', '""', '\n', '\r\n', ';', "'", '\\', '(null)', 'x'.repeat(40)];

/** Runs the fault-injection harness; never throws for wrong rows (they are in the report). */
export async function runFaults(opts: FaultOptions = {}): Promise<FaultReport> {
  const started = performance.now();
  const total = opts.faults ?? 50;
  const random = prng(opts.seed ?? 1);
  const log = opts.log ?? (() => undefined);
  const root = mkdtempSync(join(tmpdir(), 'tsq-faults-'));
  const seedDir = join(root, 'seed');
  mkdirSync(seedDir);
  writeFileSync(
    join(seedDir, 'model.json'),
    JSON.stringify({
      tables: [
        {
          name: TABLE.table,
          database: TABLE.database,
          columns: [
            { name: 'id', dataType: 'INT64', kind: 'ATTRIBUTE' },
            { name: 'batch', dataType: 'VARCHAR' },
            { name: 'payload', dataType: 'VARCHAR' },
          ],
        },
      ],
      groups: [{ name: 'Administrators', privileges: ['ADMINISTRATION'] }],
      users: [{ name: USER.username, password: USER.password, groups: ['Administrators'] }],
    }),
  );
  const dataDir = join(root, 'state');
  const sup = new Supervisor(dataDir, seedDir, join(root, 'crash-at'), random);
  const proxy = new FaultProxy(() => sup.port());
  const report: FaultReport = {
    faults: 0,
    byKind: {},
    loads: 0,
    verdicts: { ok: 0, unchanged: 0, unknown: 0 },
    rowsSent: 0,
    rowsExpected: 0,
    lost: 0,
    duplicated: 0,
    fabricated: 0,
    misreported: 0,
    leftoverFiles: 0,
    problems: [],
    ms: 0,
  };
  const problem = (p: string) => {
    if (report.problems.length < 50) report.problems.push(p);
    log(`PROBLEM ${p}`);
  };
  const count = (kind: string) => {
    report.faults++;
    report.byKind[kind] = (report.byKind[kind] ?? 0) + 1;
  };
  /** Every row that must be in the table now: id → payload. */
  const expected = new Map<number, string>();
  let nextId = 1;
  let avgMs = 400;

  await sup.start();
  const url = await proxy.listen();
  const client = new AnalyticsServiceClient({ url, username: USER.username, password: USER.password, ignoreNodeRedirect: true });
  const checker = new AnalyticsServiceClient({ url, username: USER.username, password: USER.password, ignoreNodeRedirect: true });
  const guid = stableGuid('table', TABLE.database, TABLE.schema, TABLE.table);
  const def: LoadDefinition = {
    target: { database: TABLE.database, table: TABLE.table },
    format: { type: 'csv', field_separator: ',', has_header_row: true },
    load_options: { max_ignored_rows: 0 },
  };

  /** Writes the file of one load (its own ids) under batch `label`. */
  const plan = (label: string, n: number): LoadPlan => {
    const rows = new Map<number, string>();
    let text = 'id,batch,payload\n';
    for (let i = 0; i < n; i++) {
      const id = nextId++;
      let p = '';
      const parts = 1 + Math.floor(random() * 5);
      for (let k = 0; k < parts; k++) p += PIECES[Math.floor(random() * PIECES.length)];
      p += `#${id}`;
      rows.set(id, p);
      text += `${id},${label},"${p.replace(/"/g, '""')}"${random() < 0.2 ? '\r\n' : '\n'}`;
    }
    const path = join(root, `${label}-${rows.keys().next().value}.csv`);
    writeFileSync(path, text);
    report.rowsSent += n;
    return { path, rows, controller: new AbortController() };
  };

  /** Runs one load to its verdict. */
  const load = async (p: LoadPlan): Promise<void> => {
    report.loads++;
    const t0 = performance.now();
    try {
      const result = await runLoad(client, p.path, def, {
        chunkBytes: 1024 + Math.floor(random() * 8192),
        signal: p.controller.signal,
        pollIntervalMs: 20,
        maxPollIntervalMs: 200,
        commitTimeoutMs: 10_000,
        progressIntervalMs: 1e9,
      });
      p.verdict = { kind: 'ok', result };
      avgMs = avgMs * 0.8 + (performance.now() - t0) * 0.2;
    } catch (e) {
      const unchanged = e instanceof LoadError && e.tableUnchanged;
      p.verdict = { kind: unchanged ? 'unchanged' : 'unknown', error: e, cycleId: e instanceof LoadError ? e.cycleId : undefined };
    }
  };

  /** A random instant within a load's expected duration, in ms. */
  const instant = () => random() * avgMs * 1.2;
  const later = (ms: number, fn: () => void | Promise<void>) =>
    new Promise<void>((r) =>
      setTimeout(() => {
        void Promise.resolve(fn()).finally(r);
      }, ms),
    );

  /** The final status of a cycle the client could not learn, read until it is no longer COMMITTING. */
  const finalStatus = async (cycleId: string): Promise<string> => {
    for (let i = 0; i < 600; i++) {
      try {
        const s = await checker.loadStatus(cycleId);
        if (s.internalStage !== 'COMMITTING') return s.status.code ?? s.internalStage ?? 'unknown';
      } catch {
        await sup.up();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return 'unknown';
  };

  /** Reads `query`'s rows, every page, retrying while the emulator restarts. */
  const rowsOf = async (queryString: string): Promise<unknown[][]> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const out: unknown[][] = [];
        for await (const page of checker.searchAllPages({ queryString, dataSourceGuid: guid, pageSize: 100_000 })) out.push(...(page.data as unknown[][]));
        return out;
      } catch (e) {
        if (attempt > 50) throw e;
        await sup.up();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  /** Compares the table's rows of batch `label` with what the client was told, and the total row count. */
  const check = async (label: string, plans: LoadPlan[]): Promise<void> => {
    const sent = new Map<number, string>();
    const want = new Map<number, string>();
    for (const p of plans) {
      const v = p.verdict!;
      let present: boolean;
      if (v.kind === 'ok') {
        report.verdicts.ok++;
        present = true;
        if (v.result.rowsWritten !== p.rows.size) {
          report.misreported++;
          problem(`${label}: cycle ${v.result.cycleId} told OK with ${v.result.rowsWritten} rows written for ${p.rows.size} rows`);
        }
      } else if (v.kind === 'unchanged') {
        report.verdicts.unchanged++;
        present = false;
      } else {
        report.verdicts.unknown++;
        // the client was told the outcome is unknown: the service's final status must agree with the table
        present = v.cycleId ? (await finalStatus(v.cycleId)) === 'OK' : false;
      }
      for (const [id, payload] of p.rows) {
        sent.set(id, payload);
        if (present) want.set(id, payload);
      }
    }
    const got = await rowsOf(`[id] [payload] count [batch] [batch] = '${label}'`);
    const seen = new Map<number, number>();
    for (const [idv, payload, n] of got as [number, string, number][]) {
      const id = Number(idv);
      seen.set(id, (seen.get(id) ?? 0) + Number(n));
      if (!sent.has(id)) {
        report.fabricated += Number(n);
        problem(`${label}: row ${id} was never sent`);
      } else if (!want.has(id)) {
        report.fabricated += Number(n);
        problem(`${label}: row ${id} is in the table but its load was told ${plans.find((p) => p.rows.has(id))?.verdict?.kind}`);
      } else if (want.get(id) !== payload) {
        report.fabricated += Number(n);
        problem(`${label}: row ${id} holds ${JSON.stringify(payload)} instead of ${JSON.stringify(want.get(id))}`);
      }
    }
    for (const [id, n] of seen) {
      if (n > 1 && want.has(id)) {
        report.duplicated += n - 1;
        problem(`${label}: row ${id} is in the table ${n} times`);
      }
    }
    for (const [id, payload] of want) {
      expected.set(id, payload);
      const n = seen.get(id) ?? 0;
      const matching = got.some((r) => Number(r[0]) === id && r[1] === payload);
      if (n === 0 || !matching) {
        report.lost++;
        if (n === 0) problem(`${label}: row ${id} is missing though its load was told ${plans.find((p) => p.rows.has(id))?.verdict?.kind}`);
      }
    }
    report.rowsExpected = expected.size;
    const [totalRow] = await rowsOf('count [batch]');
    const totalRows = Number(totalRow?.[0] ?? 0);
    if (totalRows !== expected.size) {
      problem(`${label}: the table holds ${totalRows} rows, ${expected.size} expected`);
      if (totalRows > expected.size) report.fabricated += totalRows - expected.size;
      else report.lost += expected.size - totalRows;
      // count each difference once: align the expectation with the table from here on
      expected.clear();
      for (const [id, payload] of (await rowsOf('[id] [payload]')) as [number, string][]) expected.set(Number(id), payload);
    }
  };

  try {
    let round = 0;
    let step = 0;
    while (report.faults < total) {
      round++;
      const label = `r${round}`;
      const kind = FAULT_KINDS[(round - 1) % FAULT_KINDS.length]!;
      const size = () => 20 + Math.floor(random() * 300);
      // a round begins with a live load session (StartLoad itself does not log in again after a 401, so after
      // a restart every first StartLoad would fail; a ping does, see common/src/api/loadApi.ts)
      await client.ping().catch(() => undefined);
      // two loads run side by side in every round (three in a concurrent one), so most faults hit one mid-way
      const plans = kind === 'concurrent' ? [plan(label, size()), plan(label, size()), plan(label, size())] : [plan(label, size()), plan(label, size())];
      const running = plans.map(load);
      const injections: Promise<void>[] = [];
      let armedPoint: CrashPoint | undefined;
      const cutsBefore = proxy.cuts;
      const cut = () => proxy.armCut(random() * (plans[0]!.rows.size * 120 + 4000));
      switch (kind) {
        case 'kill-random':
          injections.push(later(instant(), async () => {
            await sup.kill();
            count('kill-random');
          }));
          break;
        case 'kill-step': {
          armedPoint = CRASH_POINTS[step++ % CRASH_POINTS.length]!;
          writeFileSync(sup.crashFile, armedPoint);
          if (armedPoint === 'cancel-recorded') injections.push(later(instant() / 2, () => plans[0]!.controller.abort()));
          break;
        }
        case 'tcp-cut':
          cut();
          // a second cut once the first happened
          injections.push(later(instant() / 2, () => {
            if (!proxy.armed) cut();
          }));
          break;
        case 'session-401':
          for (let k = 0; k < 2; k++) {
            injections.push(later(instant(), () => {
              sup.forgetSessions();
              count('session-401');
            }));
          }
          break;
        case 'cancel':
          for (const p of plans) {
            injections.push(later(instant(), () => {
              if (p.verdict) return; // already over
              p.controller.abort();
              count('cancel');
            }));
          }
          break;
        case 'concurrent':
          // three loads into one table at once, with a 401 and a cut among them
          cut();
          injections.push(later(instant(), () => {
            sup.forgetSessions();
            count('concurrent');
          }));
          break;
      }
      await Promise.all(running);
      await Promise.all(injections);
      proxy.disarm();
      for (let k = cutsBefore; k < proxy.cuts; k++) count('tcp-cut');
      if (armedPoint) {
        writeFileSync(sup.crashFile, '');
        if (existsSync(`${sup.crashFile}.fired`)) {
          count(`kill-step:${readFileSync(`${sup.crashFile}.fired`, 'utf8')}`);
          rmSync(`${sup.crashFile}.fired`);
        }
      }
      await sup.up();
      await check(label, plans);
      if (process.env.TSQ_FAULTS_DEBUG) for (const p of plans) if (p.verdict?.kind !== 'ok') log(`  ${(p.verdict as { error: Error }).error.message}`);
      log(`${label} ${kind}${armedPoint ? `:${armedPoint}` : ''}: ${plans.map((p) => p.verdict!.kind).join(', ')}; faults ${report.faults}/${total}; lost ${report.lost}, duplicated ${report.duplicated}, fabricated ${report.fabricated}`);
    }
    // the whole table once more, and no chunk left behind by ended cycles
    const all = (await rowsOf('[id] [payload] count [batch]')) as [number, string, number][];
    const inTable = new Map(all.map(([id, payload, n]) => [Number(id), { payload, n: Number(n) }]));
    for (const [id, payload] of expected) if (inTable.get(id)?.payload !== payload) problem(`final: row ${id} is missing or changed`);
    for (const [id, { n }] of inTable) if (!expected.has(id) || n !== 1) problem(`final: row ${id} is there ${n} times, ${expected.has(id) ? 'once' : 'never'} expected`);
    await sup.close();
    const cycles = join(dataDir, 'cycles');
    for (const c of readdirSync(cycles)) {
      const meta = JSON.parse(readFileSync(join(cycles, c, 'cycle.json'), 'utf8')) as { stage: string };
      const files = readdirSync(join(cycles, c)).filter((f) => f.endsWith('.part') || (meta.stage === 'DONE' && (f.startsWith('chunk-') || f.startsWith('staged-'))));
      report.leftoverFiles += files.length;
      if (files.length) problem(`cycle ${c} (${meta.stage}) still holds ${files.join(', ')}`);
    }
  } finally {
    await client.close();
    await checker.close();
    await proxy.close();
    await sup.close();
    rmSync(root, { recursive: true, force: true });
  }
  report.ms = performance.now() - started;
  return report;
}

/** The report as text for a person. */
export function formatReport(r: FaultReport): string {
  const kinds = Object.entries(r.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `  ${k.padEnd(32)} ${n}`)
    .join('\n');
  return [
    `faults injected: ${r.faults} in ${(r.ms / 1000).toFixed(1)} s`,
    kinds,
    `loads: ${r.loads} (told OK ${r.verdicts.ok}, told unchanged ${r.verdicts.unchanged}, told unknown ${r.verdicts.unknown})`,
    `rows sent: ${r.rowsSent}; rows that must be in the table: ${r.rowsExpected}`,
    `lost rows: ${r.lost}`,
    `duplicated rows: ${r.duplicated}`,
    `fabricated rows: ${r.fabricated}`,
    `loads told OK with a wrong row count: ${r.misreported}`,
    `chunk files left by ended cycles: ${r.leftoverFiles}`,
    ...(r.problems.length ? ['problems:', ...r.problems.map((p) => `  ${p}`)] : []),
  ].join('\n');
}

/** True when the run found no wrong row, no misreported count and no leftover chunk. */
export function reportIsClean(r: FaultReport): boolean {
  return r.lost === 0 && r.duplicated === 0 && r.fabricated === 0 && r.misreported === 0 && r.leftoverFiles === 0 && r.problems.length === 0;
}
