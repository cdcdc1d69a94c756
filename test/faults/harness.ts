// The fault-injection harness of the load path (`npm run faults`; a short run in test/faults/faults.test.ts).
// The real pipeline (common/src/load/pipeline.ts `runLoad`) loads CSV files of unique-id rows into the
// emulator, a child process behind a TCP proxy, while faults are injected:
//   kill-random  SIGKILL of the emulator at a random instant (then started again on its data folder)
//   kill-step    the emulator kills itself at a step boundary of a cycle (emulator/src/load/crash.ts)
//   tcp-cut      the proxy cuts the traffic at a random byte offset
//   session-401  the emulator forgets every load-API session (SIGUSR2)
//   cancel       the user cancels the load;  concurrent  three loads into one table, with a random kill
// After each fault the table is compared by id with what the client was told: OK → every row once; "not
// changed" → none; "unknown" → all or none, as the final status says. Lost, duplicated and fabricated
// rows are counted. Not a test file itself.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsServiceClient, type LoadDefinition } from '../../common/src/api';
import { LoadError, runLoad, type LoadResult } from '../../common/src/load/pipeline';
import { stableGuid } from '../../emulator/src/guid';
import { CRASH_POINTS, type CrashPoint } from '../../emulator/src/load/crash';
import { EmulatorProcess } from './emulatorProcess';
import { FaultProxy } from './proxy';
import { prng } from '../fixtures/prng';

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

/** Writes the seed folder: one table of rows with unique ids, one administrator. */
function writeSeed(dir: string): void {
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'model.json'),
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
}

function emptyReport(): FaultReport {
  return {
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
}

const DEFINITION: LoadDefinition = {
  target: { database: TABLE.database, table: TABLE.table },
  format: { type: 'csv', field_separator: ',', has_header_row: true },
  load_options: { max_ignored_rows: 0 },
};

/** One run of the harness: the emulator, the proxy, the clients, and what must be in the table. */
class FaultRun {
  readonly report = emptyReport();
  readonly random: () => number;
  readonly root = mkdtempSync(join(tmpdir(), 'tsq-faults-'));
  readonly dataDir = join(this.root, 'state');
  readonly sup: Supervisor;
  readonly proxy: FaultProxy;
  /** Every row that must be in the table now: id → payload. */
  readonly expected = new Map<number, string>();
  readonly guid = stableGuid('table', TABLE.database, TABLE.schema, TABLE.table);
  client!: AnalyticsServiceClient;
  checker!: AnalyticsServiceClient;
  private nextId = 1;
  private avgMs = 400;
  private step = 0;

  constructor(readonly opts: FaultOptions) {
    this.random = prng(opts.seed ?? 1);
    writeSeed(join(this.root, 'seed'));
    this.sup = new Supervisor(this.dataDir, join(this.root, 'seed'), join(this.root, 'crash-at'), this.random);
    this.proxy = new FaultProxy(() => this.sup.port());
  }

  log(line: string): void {
    this.opts.log?.(line);
  }

  problem(p: string): void {
    if (this.report.problems.length < 50) this.report.problems.push(p);
    this.log(`PROBLEM ${p}`);
  }

  count(kind: string): void {
    this.report.faults++;
    this.report.byKind[kind] = (this.report.byKind[kind] ?? 0) + 1;
  }

  async start(): Promise<void> {
    await this.sup.start();
    const url = await this.proxy.listen();
    this.client = new AnalyticsServiceClient({ url, username: USER.username, password: USER.password, ignoreNodeRedirect: true });
    this.checker = new AnalyticsServiceClient({ url, username: USER.username, password: USER.password, ignoreNodeRedirect: true });
  }

  /** Writes the file of one load (its own ids) under batch `label`. */
  plan(label: string, n: number): LoadPlan {
    const rows = new Map<number, string>();
    let text = 'id,batch,payload\n';
    for (let i = 0; i < n; i++) {
      const id = this.nextId++;
      let p = '';
      const parts = 1 + Math.floor(this.random() * 5);
      for (let k = 0; k < parts; k++) p += PIECES[Math.floor(this.random() * PIECES.length)];
      p += `#${id}`;
      rows.set(id, p);
      text += `${id},${label},"${p.replace(/"/g, '""')}"${this.random() < 0.2 ? '\r\n' : '\n'}`;
    }
    const path = join(this.root, `${label}-${rows.keys().next().value}.csv`);
    writeFileSync(path, text);
    this.report.rowsSent += n;
    return { path, rows, controller: new AbortController() };
  }

  /** Runs one load through the real pipeline to its verdict. */
  async load(p: LoadPlan): Promise<void> {
    this.report.loads++;
    const t0 = performance.now();
    try {
      const result = await runLoad(this.client, p.path, DEFINITION, {
        chunkBytes: 1024 + Math.floor(this.random() * 8192),
        signal: p.controller.signal,
        pollIntervalMs: 20,
        maxPollIntervalMs: 200,
        commitTimeoutMs: 10_000,
        progressIntervalMs: 1e9,
      });
      p.verdict = { kind: 'ok', result };
      this.avgMs = this.avgMs * 0.8 + (performance.now() - t0) * 0.2;
    } catch (e) {
      const unchanged = e instanceof LoadError && e.tableUnchanged;
      p.verdict = { kind: unchanged ? 'unchanged' : 'unknown', error: e, cycleId: e instanceof LoadError ? e.cycleId : undefined };
    }
  }

  /** A random instant within a load's expected duration, in ms. */
  instant(): number {
    return this.random() * this.avgMs * 1.2;
  }

  later(ms: number, fn: () => void | Promise<void>): Promise<void> {
    return new Promise<void>((r) =>
      setTimeout(() => {
        void Promise.resolve(fn()).finally(r);
      }, ms),
    );
  }

  /** The final status of a cycle the client could not learn, read until it is no longer COMMITTING. */
  async finalStatus(cycleId: string): Promise<string> {
    for (let i = 0; i < 600; i++) {
      try {
        const s = await this.checker.loadStatus(cycleId);
        if (s.internalStage !== 'COMMITTING') return s.status.code ?? s.internalStage ?? 'unknown';
      } catch {
        await this.sup.up();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return 'unknown';
  }

  /** Reads `query`'s rows (searchdata, every page), retrying while the emulator restarts. */
  async rowsOf(queryString: string): Promise<unknown[][]> {
    for (let attempt = 0; ; attempt++) {
      try {
        const out: unknown[][] = [];
        for await (const page of this.checker.searchAllPages({ queryString, dataSourceGuid: this.guid, pageSize: 100_000 })) out.push(...(page.data as unknown[][]));
        return out;
      } catch (e) {
        if (attempt > 50) throw e;
        await this.sup.up();
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** The rows each load's verdict says must be in the table (an unknown verdict: as the cycle's final status says). */
  async wanted(label: string, plans: LoadPlan[]): Promise<{ sent: Map<number, string>; want: Map<number, string> }> {
    const sent = new Map<number, string>();
    const want = new Map<number, string>();
    for (const p of plans) {
      const v = p.verdict!;
      let present: boolean;
      if (v.kind === 'ok') {
        this.report.verdicts.ok++;
        present = true;
        if (v.result.rowsWritten !== p.rows.size) {
          this.report.misreported++;
          this.problem(`${label}: cycle ${v.result.cycleId} told OK with ${v.result.rowsWritten} rows written for ${p.rows.size} rows`);
        }
      } else if (v.kind === 'unchanged') {
        this.report.verdicts.unchanged++;
        present = false;
      } else {
        this.report.verdicts.unknown++;
        present = v.cycleId ? (await this.finalStatus(v.cycleId)) === 'OK' : false;
      }
      for (const [id, payload] of p.rows) {
        sent.set(id, payload);
        if (present) want.set(id, payload);
      }
    }
    return { sent, want };
  }

  /** Compares the table's rows of batch `label` with what the client was told, then the total row count. */
  async check(label: string, plans: LoadPlan[]): Promise<void> {
    const { sent, want } = await this.wanted(label, plans);
    const verdictOf = (id: number) => plans.find((p) => p.rows.has(id))?.verdict?.kind;
    const got = (await this.rowsOf(`[id] [payload] count [batch] [batch] = '${label}'`)) as [number, string, number][];
    const seen = new Map<number, number>();
    for (const [idv, payload, nv] of got) {
      const id = Number(idv);
      const n = Number(nv);
      seen.set(id, (seen.get(id) ?? 0) + n);
      if (!sent.has(id)) {
        this.report.fabricated += n;
        this.problem(`${label}: row ${id} was never sent`);
      } else if (!want.has(id)) {
        this.report.fabricated += n;
        this.problem(`${label}: row ${id} is in the table but its load was told ${verdictOf(id)}`);
      } else if (want.get(id) !== payload) {
        this.report.fabricated += n;
        this.problem(`${label}: row ${id} holds ${JSON.stringify(payload)} instead of ${JSON.stringify(want.get(id))}`);
      }
    }
    for (const [id, n] of seen) {
      if (n > 1 && want.has(id)) {
        this.report.duplicated += n - 1;
        this.problem(`${label}: row ${id} is in the table ${n} times`);
      }
    }
    for (const [id, payload] of want) {
      this.expected.set(id, payload);
      if (!got.some((r) => Number(r[0]) === id && r[1] === payload)) {
        this.report.lost++;
        if (!seen.has(id)) this.problem(`${label}: row ${id} is missing though its load was told ${verdictOf(id)}`);
      }
    }
    this.report.rowsExpected = this.expected.size;
    await this.checkTotal(label);
  }

  /** The table's row count against the rows that must be there; a difference is counted once, then taken as the new expectation. */
  async checkTotal(label: string): Promise<void> {
    const [totalRow] = await this.rowsOf('count [batch]');
    const totalRows = Number(totalRow?.[0] ?? 0);
    if (totalRows === this.expected.size) return;
    this.problem(`${label}: the table holds ${totalRows} rows, ${this.expected.size} expected`);
    if (totalRows > this.expected.size) this.report.fabricated += totalRows - this.expected.size;
    else this.report.lost += this.expected.size - totalRows;
    this.expected.clear();
    for (const [id, payload] of (await this.rowsOf('[id] [payload]')) as [number, string][]) this.expected.set(Number(id), payload);
  }

  /** Starts the round's fault of `kind` while `plans` run; returns the injections to wait for and the armed crash point. */
  inject(kind: FaultKind, plans: LoadPlan[]): { injections: Promise<void>[]; armedPoint?: CrashPoint } {
    const injections: Promise<void>[] = [];
    const cut = () => this.proxy.armCut(this.random() * (plans[0]!.rows.size * 120 + 4000));
    switch (kind) {
      case 'kill-random':
        injections.push(this.later(this.instant(), async () => {
          await this.sup.kill();
          this.count('kill-random');
        }));
        return { injections };
      case 'kill-step': {
        const armedPoint = CRASH_POINTS[this.step++ % CRASH_POINTS.length]!;
        writeFileSync(this.sup.crashFile, armedPoint);
        if (armedPoint === 'cancel-recorded') injections.push(this.later(this.instant() / 2, () => plans[0]!.controller.abort()));
        return { injections, armedPoint };
      }
      case 'tcp-cut':
        cut();
        // a second cut once the first happened
        injections.push(this.later(this.instant() / 2, () => {
          if (!this.proxy.armed) cut();
        }));
        return { injections };
      case 'session-401':
        for (let k = 0; k < 2; k++) {
          injections.push(this.later(this.instant(), () => {
            this.sup.forgetSessions();
            this.count('session-401');
          }));
        }
        return { injections };
      case 'cancel':
        for (const p of plans) {
          injections.push(this.later(this.instant(), () => {
            if (p.verdict) return; // already over
            p.controller.abort();
            this.count('cancel');
          }));
        }
        return { injections };
      case 'concurrent':
        // three loads into one table at once, with a 401 and a cut among them
        cut();
        injections.push(this.later(this.instant(), () => {
          this.sup.forgetSessions();
          this.count('concurrent');
        }));
        return { injections };
    }
  }

  /** One round: two loads (three when concurrent) with the round's fault, then the check. */
  async round(n: number): Promise<void> {
    const label = `r${n}`;
    const kind = FAULT_KINDS[(n - 1) % FAULT_KINDS.length]!;
    const size = () => 20 + Math.floor(this.random() * 300);
    const plans = Array.from({ length: kind === 'concurrent' ? 3 : 2 }, () => this.plan(label, size()));
    const cutsBefore = this.proxy.cuts;
    const running = plans.map((p) => this.load(p));
    const { injections, armedPoint } = this.inject(kind, plans);
    await Promise.all(running);
    await Promise.all(injections);
    this.proxy.disarm();
    for (let k = cutsBefore; k < this.proxy.cuts; k++) this.count('tcp-cut');
    if (armedPoint) {
      writeFileSync(this.sup.crashFile, '');
      const fired = `${this.sup.crashFile}.fired`;
      if (existsSync(fired)) {
        this.count(`kill-step:${readFileSync(fired, 'utf8')}`);
        rmSync(fired);
      }
    }
    await this.sup.up();
    await this.check(label, plans);
    if (process.env.TSQ_FAULTS_DEBUG) for (const p of plans) if (p.verdict?.kind !== 'ok') this.log(`  ${(p.verdict as { error: Error }).error.message}`);
    const r = this.report;
    this.log(`${label} ${kind}${armedPoint ? `:${armedPoint}` : ''}: ${plans.map((p) => p.verdict!.kind).join(', ')}; faults ${r.faults}/${this.opts.faults ?? 50}; lost ${r.lost}, duplicated ${r.duplicated}, fabricated ${r.fabricated}`);
  }

  /** The whole table once more, then (emulator stopped) no chunk left by ended cycles and no `.part` file anywhere. */
  async finalCheck(): Promise<void> {
    const all = (await this.rowsOf('[id] [payload] count [batch]')) as [number, string, number][];
    const inTable = new Map(all.map(([id, payload, n]) => [Number(id), { payload, n: Number(n) }]));
    for (const [id, payload] of this.expected) if (inTable.get(id)?.payload !== payload) this.problem(`final: row ${id} is missing or changed`);
    for (const [id, { n }] of inTable) if (!this.expected.has(id) || n !== 1) this.problem(`final: row ${id} is there ${n} times, ${this.expected.has(id) ? 'once' : 'never'} expected`);
    await this.sup.close();
    const cycles = join(this.dataDir, 'cycles');
    for (const c of readdirSync(cycles)) {
      // a StartLoad killed between its folder and its metadata leaves a folder the next start deletes
      if (!existsSync(join(cycles, c, 'cycle.json'))) {
        const files = readdirSync(join(cycles, c));
        this.report.leftoverFiles += files.length;
        if (files.length) this.problem(`cycle folder ${c} has no metadata but holds ${files.join(', ')}`);
        continue;
      }
      const meta = JSON.parse(readFileSync(join(cycles, c, 'cycle.json'), 'utf8')) as { stage: string };
      const files = readdirSync(join(cycles, c)).filter((f) => f.endsWith('.part') || (meta.stage === 'DONE' && (f.startsWith('chunk-') || f.startsWith('staged-'))));
      this.report.leftoverFiles += files.length;
      if (files.length) this.problem(`cycle ${c} (${meta.stage}) still holds ${files.join(', ')}`);
    }
  }

  async close(): Promise<void> {
    await this.client?.close();
    await this.checker?.close();
    await this.proxy.close();
    await this.sup.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Runs the fault-injection harness; never throws for wrong rows (they are in the report). */
export async function runFaults(opts: FaultOptions = {}): Promise<FaultReport> {
  const started = performance.now();
  const run = new FaultRun(opts);
  try {
    await run.start();
    for (let n = 1; run.report.faults < (opts.faults ?? 50); n++) await run.round(n);
    await run.finalCheck();
  } finally {
    await run.close();
  }
  run.report.ms = performance.now() - started;
  return run.report;
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
