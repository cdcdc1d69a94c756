// `npm start` (scripts/start.mjs) on a fresh clone: a copy of the repository's files with no
// node_modules and no dist/, made a Git repository as a clone is. It installs the dependencies, whose
// `prepare` script builds the bundles, and then builds no second time (esbuild reports dist/cli.js once);
// its default state folder is in the OS's cache folder ($XDG_CACHE_HOME here), so the workspace it
// prepares is outside the clone and inside no Git repository. Run with --no-open (no editor); the
// emulator it started is stopped with SIGTERM to its process group. The npm cache answers the install.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { copyOfRepository, npmEnv } from './action-support';

let clone: string;
let cache: string;
let proc: ChildProcess | undefined;

before(() => {
  clone = copyOfRepository();
  assert.equal(spawnSync('git', ['init', '-q'], { cwd: clone }).status, 0);
  cache = mkdtempSync(join(tmpdir(), 'tsq-start-cache-'));
});

after(() => {
  if (proc?.pid && proc.exitCode === null) {
    try {
      process.kill(-proc.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  for (const d of [clone, cache]) if (d) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
});

test('npm start on a fresh clone builds once and prepares the workspace outside any Git repository', async () => {
  const env = npmEnv({ XDG_CACHE_HOME: cache, LANG: 'C.UTF-8', npm_config_prefer_offline: 'true' });
  proc = spawn(process.execPath, [join(clone, 'scripts', 'start.mjs'), '--no-open', '--port', '0'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const ready = await new Promise<boolean>((done) => {
    const onData = (d: Buffer): void => {
      output += d.toString();
      if (output.includes('TSQ is ready')) done(true);
    };
    proc!.stdout!.on('data', onData);
    proc!.stderr!.on('data', onData);
    proc!.once('exit', () => done(false));
  });
  assert.ok(ready, `npm start got ready:\n${output}`);
  assert.ok(existsSync(join(clone, 'node_modules', '.package-lock.json')), 'it installed the dependencies');
  const builds = output.split('\n').filter((l) => /^\s*dist[/\\]cli\.js\s/.test(l));
  assert.equal(builds.length, 1, `the bundles were built once:\n${output}`);
  const workspace = join(cache, 'tsq', 'demo', 'workspace');
  assert.ok(output.includes(`demo workspace: ${workspace} `), `the workspace is in the cache folder:\n${output}`);
  assert.ok(existsSync(join(workspace, 'flights.tsq')) && existsSync(join(workspace, '.vscode', 'settings.json')));
  assert.ok(relative(clone, workspace).startsWith('..'), 'the workspace is outside the clone');
  assert.notEqual(spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: workspace }).status, 0, 'the workspace is inside no Git repository');
  assert.doesNotMatch(output, /inside the Git repository/);
  const exited = new Promise((done) => proc!.once('exit', done));
  process.kill(-proc.pid!, 'SIGTERM');
  await exited;
});
