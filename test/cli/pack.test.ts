// The packed tarball, as README's "other CI systems" install it: `npm pack` into a temporary folder,
// `npm install -g` of the tarball into an empty prefix (dependencies from the npm cache first, the
// registry only for what it lacks: --prefer-offline), and the installed `tsq` run on files outside the
// clone: `tsq check --format github` against the real emulator annotates the bad file and exits 1, a
// good file passes. The pack uses the bundles the test runner built (--ignore-scripts: rebuilding dist/
// here would change it under the other tests); README's `npm ci && npm pack` builds them first.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLive, type Live } from '../emulator/client-support';
import { annotations, npmEnv, ROOT } from './action-support';
import { EMPTY_HOME } from './cli-support';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** Runs a command to its end without blocking this process (the emulator runs in it). */
function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

let live: Live;
let dir: string;

before(async () => {
  live = await startLive();
  dir = mkdtempSync(join(tmpdir(), 'tsq-pack-'));
});

after(async () => {
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the packed tarball installs into an empty prefix and its tsq checks files outside the clone', { timeout: 10 * 60_000 }, async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli.js')), 'the bundles are built (node esbuild.mjs)');
  const installEnv = npmEnv();
  const pack = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, env: installEnv });
  assert.equal(pack.code, 0, pack.stderr);
  const tarball = join(dir, `${manifest.name}-${manifest.version}.tgz`);
  assert.ok(existsSync(tarball), `npm pack wrote ${tarball}`);

  const prefix = join(dir, 'prefix');
  // a registry connection that stalls (seen once: an install idle for ten minutes) is dropped after a
  // minute and the fetch retried, instead of waiting out npm's five-minute default
  const install = await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--fetch-timeout=60000', '--fetch-retries=2', tarball], { cwd: dir, env: installEnv });
  assert.equal(install.code, 0, install.stderr);
  const bin = join(prefix, 'bin', 'tsq');
  assert.ok(existsSync(bin), 'the install put tsq into the prefix');

  const work = join(dir, 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  writeFileSync(join(work, 'bad.tsq'), "@datasource 'movies'\n[Director] [nope]\n");
  writeFileSync(join(work, 'good.tsq'), "@datasource 'movies'\n[Director] [US Gross] top 3\n");
  const env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: EMPTY_HOME, XDG_CONFIG_HOME: join(EMPTY_HOME, '.config'), TSQ_PASSWORD: 'admin' };
  const version = await run(bin, ['--version'], { cwd: work, env });
  assert.equal(version.stdout.trim(), manifest.version);
  const conn = ['--format', 'github', '--url', live.emu.url, '--user', 'tsadmin'];
  const bad = await run(bin, ['check', ...conn, 'bad.tsq'], { cwd: work, env });
  assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  const errors = annotations(bad.stdout).filter((a) => a.kind === 'error');
  assert.ok(errors.some((e) => e.props.file === 'bad.tsq' && e.props.line === '2' && e.props.title === 'tsq.unknownColumn'), bad.stdout);
  const good = await run(bin, ['check', ...conn, 'good.tsq'], { cwd: work, env });
  assert.equal(good.code, 0, good.stdout + good.stderr);
});
