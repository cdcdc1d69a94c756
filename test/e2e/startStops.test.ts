/**
 * `npm start` (scripts/start.mjs) stops everything it started, whichever way it is stopped, and
 * survives its emulator:
 * - Ctrl-C (SIGINT to the foreground process group), SIGTERM to npm's process, SIGTERM to start.mjs,
 *   and the editor's window closing (the `code --wait` process ending) each leave no process and no
 *   listening port behind;
 * - an emulator that exits is started again on the same port with the same data, a few times, then
 *   everything stops with the reason;
 * - "the first start reads the demo data" is said on a first start only.
 * The runs use `--no-open` (no editor) except the window test, which puts a `code` command on the PATH
 * that waits as `code --wait` does until its window closes (a file appearing here stands for that).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, waitUntil } from './harness';
import { existsSync } from 'node:fs';

const skip = existsSync(join(ROOT, 'dist', 'emulator.js')) ? false : 'dist/emulator.js missing (npm run build)';

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); done(true); });
    s.once('error', () => done(false));
  });
}

/** Pids of the processes whose command line holds `text` (from /proc). */
function processesWith(text: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

interface Started {
  proc: ChildProcess;
  stateDir: string;
  output(): string;
  exited: Promise<number | null>;
  emulatorPort(): number;
}

/** Starts `npm start -- --no-open` (or, with `viaNpm` false, `node scripts/start.mjs`) in its own process group, and waits for it to be ready. */
async function start(opts: { viaNpm: boolean; stateDir?: string; open?: boolean; env?: NodeJS.ProcessEnv }): Promise<Started> {
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), 'tsq-start-stops-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  const args = [...(opts.open ? [] : ['--no-open']), '--port', '0', '--state-dir', stateDir, '--no-build'];
  const proc = opts.viaNpm
    ? spawn('npm', ['start', '--silent', '--', ...args], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), ...args], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout!.on('data', (b: Buffer) => { output += b.toString(); });
  proc.stderr!.on('data', (b: Buffer) => { output += b.toString(); });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  await waitUntil(() => {
    if (proc.exitCode !== null) throw new Error(`npm start exited (${proc.exitCode}):\n${output.slice(-3000)}`);
    return /TSQ is ready/.test(output);
  }, 'npm start to be ready', 300_000, 100);
  const emulatorPort = () => Number([...output.matchAll(/emulator listening on http:\/\/127\.0\.0\.1:(\d+)/g)].pop()?.[1]);
  return { proc, stateDir, output: () => output, exited, emulatorPort };
}

/** Waits until no process names the state folder and the emulator's port is free. */
async function nothingLeft(s: Started, port: number): Promise<void> {
  await waitUntil(async () => processesWith(s.stateDir).length === 0 && !(await listening(port)), `no process of ${s.stateDir} and port ${port} free`, 20_000, 100).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}: left ${JSON.stringify(processesWith(s.stateDir))}\n${s.output().slice(-2000)}`);
  });
}

function cleanUp(s: Started): void {
  for (const pid of processesWith(s.stateDir)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  rmSync(s.stateDir, { recursive: true, force: true, maxRetries: 3 });
}

/** The pid of start.mjs itself (the node process running scripts/start.mjs for this state folder). */
function startScriptPid(s: Started): number {
  const pids = processesWith(s.stateDir).filter((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').some((a) => a.endsWith('scripts/start.mjs')));
  assert.equal(pids.length, 1, `one start.mjs process: ${JSON.stringify(pids)}`);
  return pids[0];
}

test('Ctrl-C stops everything, and only a first start says it reads the demo data', { skip, timeout: 300_000 }, async () => {
  const first = await start({ viaNpm: true });
  const stateDir = first.stateDir;
  let second: Started | undefined;
  try {
    assert.match(first.output(), /the first start reads the demo data/);
    let port = first.emulatorPort();
    // Ctrl-C in a terminal: SIGINT to every process of the foreground group (npm, sh, start.mjs)
    process.kill(-first.proc.pid!, 'SIGINT');
    await first.exited;
    await nothingLeft(first, port);

    second = await start({ viaNpm: true, stateDir });
    assert.doesNotMatch(second.output(), /first start/, second.output());
    port = second.emulatorPort();
    process.kill(-second.proc.pid!, 'SIGINT');
    await second.exited;
    await nothingLeft(second, port);
  } finally {
    cleanUp(second ?? first);
  }
});

test('SIGTERM to npm’s process stops everything', { skip, timeout: 300_000 }, async () => {
  const s = await start({ viaNpm: true });
  try {
    const port = s.emulatorPort();
    s.proc.kill('SIGTERM'); // npm only, not its group
    await s.exited;
    await nothingLeft(s, port);
    assert.match(s.output(), /stopping/);
  } finally {
    cleanUp(s);
  }
});

test('SIGTERM to start.mjs stops everything', { skip, timeout: 300_000 }, async () => {
  const s = await start({ viaNpm: true });
  try {
    const port = s.emulatorPort();
    process.kill(startScriptPid(s), 'SIGTERM');
    await s.exited;
    await nothingLeft(s, port);
  } finally {
    cleanUp(s);
  }
});

test('closing the editor window stops everything', { skip, timeout: 300_000 }, async () => {
  const bin = mkdtempSync(join(tmpdir(), 'tsq-start-code-'));
  const closed = join(bin, 'window-closed');
  // `code --wait` ends when its window closes; this one ends when the file appears
  writeFileSync(join(bin, 'code'), `#!/bin/sh\nwhile [ ! -e '${closed}' ]; do sleep 0.1; done\n`);
  chmodSync(join(bin, 'code'), 0o755);
  const s = await start({ viaNpm: true, open: true, env: { PATH: `${bin}:${process.env.PATH}` } });
  try {
    assert.match(s.output(), /TSQ is ready in VS Code/);
    const port = s.emulatorPort();
    writeFileSync(closed, '');
    await s.exited;
    await nothingLeft(s, port);
    assert.match(s.output(), /code exited/);
  } finally {
    cleanUp(s);
    rmSync(bin, { recursive: true, force: true });
  }
});

test('an emulator that exits is started again on the same port and data, then npm start gives up with the reason', { skip, timeout: 300_000 }, async () => {
  const s = await start({ viaNpm: false });
  try {
    const port = s.emulatorPort();
    const emulatorPid = () => processesWith(s.stateDir).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('emulator.js'));
    for (let restart = 1; restart <= 3; restart++) {
      const pid = emulatorPid();
      assert.ok(pid, s.output());
      process.kill(pid, 'SIGKILL');
      await waitUntil(() => s.output().includes(`restart ${restart} of 3`), `restart ${restart}`, 30_000, 100);
      await waitUntil(async () => (await listening(port)) && emulatorPid() !== pid, `the emulator back on port ${port}`, 60_000, 100);
      assert.match(s.output(), new RegExp(`starting it again on port ${port} with the same data \\(${s.stateDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/emulator-data\\)`));
      assert.equal(s.proc.exitCode, null, 'npm start is still running');
    }
    mkdirSync(join(s.stateDir, 'unused'), { recursive: true });
    process.kill(emulatorPid()!, 'SIGKILL');
    assert.equal(await s.exited, 1);
    assert.match(s.output(), /after 3 restarts; stopping everything/);
    await nothingLeft(s, port);
  } finally {
    cleanUp(s);
  }
});
