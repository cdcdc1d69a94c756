// The emulator as a child process (dist/emulator.js, built by esbuild.mjs), so that a test can kill it
// with SIGKILL at any instant and start it again on the same data folder. Not a test file itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Options of `EmulatorProcess.start`. */
export interface EmulatorProcessOptions {
  dataDir: string;
  seed?: string;
  /** Extra environment (e.g. `TSQ_EMULATOR_CRASH_AT`). */
  env?: Record<string, string>;
  /** Extra command-line flags. */
  args?: string[];
}

/** A running emulator process on an ephemeral loopback port. */
export class EmulatorProcess {
  /** Resolves when the process ended, with its exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private ended = false;

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly port: number,
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  ) {
    this.exited = exited;
    void exited.then(() => (this.ended = true));
  }

  /** True while the process runs. */
  get alive(): boolean {
    return !this.ended;
  }

  /** Starts `dist/emulator.js --port 0` (or the bundle `TSQ_EMULATOR_BUNDLE` names) and waits for its "listening on" line. Throws with its stderr when it exits first. */
  static async start(o: EmulatorProcessOptions): Promise<EmulatorProcess> {
    const args = [process.env.TSQ_EMULATOR_BUNDLE ?? join(ROOT, 'dist', 'emulator.js'), '--port', '0', '--data-dir', o.dataDir, ...(o.seed ? ['--seed', o.seed] : []), ...(o.args ?? [])];
    const child = spawn(process.execPath, args, { env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) {
          child.stdout!.off('data', onData);
          child.stdout!.resume();
          resolve(m[1] as string);
        }
      };
      child.stdout!.on('data', onData);
      void exited.then(({ code, signal }) => reject(new Error(`the emulator exited (${code ?? signal}) before listening: ${err}`)));
    });
    return new EmulatorProcess(child, url, Number(new URL(url).port), exited);
  }

  /** Kills the process with SIGKILL (a crash) and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.ended) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Stops the process cleanly (SIGTERM) and waits until it is gone. */
  async stop(): Promise<void> {
    if (this.ended) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }
}
