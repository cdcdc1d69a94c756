/**
 * `npm start` (scripts/start.mjs) as the end-to-end tests run it: code-server mode, free ports, a
 * fresh state folder, no rebuild (the test runner built dist/ already). Used by start.test.ts and
 * scripts/screenshots.ts (the README's pictures).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, waitUntil } from './harness';

/** A running `npm start`. */
export interface NpmStart {
  /** The URL it printed (`http://127.0.0.1:PORT/?folder=...`), to open in Chromium. */
  url: string;
  /** Its state folder (`--state-dir`): the workspace is `<stateDir>/workspace`. */
  stateDir: string;
  proc: ChildProcess;
  /** Resolves with the exit code once the process exited. */
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM when still running, waits for the exit, removes the state folder. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `node scripts/start.mjs --code-server` and waits (up to 7 minutes: a first start installs
 * code-server) for its `TSQ is ready: URL` line.
 * @param prefix the state folder's name prefix in the temp folder.
 * @throws when the process exits first (with the end of its output) or the wait times out; it is then stopped.
 */
export async function startNpmStart(prefix: string): Promise<NpmStart> {
  const stateDir = mkdtempSync(join(tmpdir(), prefix));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  const proc = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--code-server', '--state-dir', stateDir, '--port', '0', '--code-server-port', '0', '--no-build'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (b: Buffer) => { output += b.toString(); });
  proc.stderr!.on('data', (b: Buffer) => { output += b.toString(); });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    const url = await waitUntil(() => {
      if (proc.exitCode !== null) throw new Error(`npm start exited (${proc.exitCode}):\n${output.slice(-3000)}`);
      return output.match(/TSQ is ready: (http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/)?.[1];
    }, 'npm start to print its URL', 420_000, 200);
    return { url, stateDir, proc, exited, output: () => output, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
