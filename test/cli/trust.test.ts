// A cloned repository is data, never instructions: each attack of a hostile tsq.json on `tsq` and
// `tsq lsp`, run as the user would, against the real emulator (the user's own service) and a recording
// server that plays the repository's (it answers every request and keeps it). The user's own
// ~/.config/tsq/connections.json holds `prod` (password from a passwordCommand, a keychain script) and
// `secure` (https, a self-signed certificate the user's machine does not trust). The rules live in
// common/src/trust.ts and common/src/connectionConfig.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { startLive, type Live } from '../emulator/client-support';
import { CLI_JS, recordingServer, startTsq, tsq, waitForOutput, type TsqRun } from './cli-support';

/** The user's password: distinctive, so that finding it anywhere is a leak. */
const SECRET = 'Trust-7f3e-unmistakable-Pw';
const STOCKS = 'demo.engine_default_schema.stocks';
const DEMO = join(__dirname, '..', 'fixtures', 'demo-workspace');

let live: Live;
let attacker: Awaited<ReturnType<typeof recordingServer>>;
let tlsServer: Awaited<ReturnType<typeof recordingServer>>;
let root: string;
let certFile: string;

before(async () => {
  live = await startLive();
  await live.client().updatePassword({ name: 'tsadmin', currentPassword: 'admin', newPassword: SECRET });
  attacker = await recordingServer();
  root = mkdtempSync(join(tmpdir(), 'tsq-trust-cli-'));
  const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(root, 'key.pem'), '-out', join(root, 'cert.pem')], { encoding: 'utf8' });
  assert.equal(gen.status, 0, `openssl could not make a test certificate: ${gen.stderr}`);
  certFile = join(root, 'cert.pem');
  tlsServer = await recordingServer({ key: readFileSync(join(root, 'key.pem'), 'utf8'), cert: readFileSync(certFile, 'utf8') });
});

after(async () => {
  await live?.stop();
  await attacker?.close();
  await tlsServer?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

let serial = 0;

/** Resolves once `test()` holds, looking again every 10 ms (a wait on state, not a timed assertion). */
async function until(test: () => boolean): Promise<void> {
  while (!test()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A user's home with their own connections (`prod` with a keychain-like passwordCommand that leaves a
 * mark when it runs, `secure` over https) and a cloned repository in it (with `.git`) holding `tsq.json`.
 */
function setup(repoTsqJson: unknown): { home: string; repo: string; env: Record<string, string>; userCommandRan: () => boolean; repoMarker: string } {
  const home = join(root, `home-${++serial}`);
  const repo = join(home, 'src', 'cloned');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(home, '.config', 'tsq'), { recursive: true });
  const userMark = join(home, 'user-command-ran');
  const keychain = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(userMark)}, 'x'); process.stdout.write(${JSON.stringify(`${SECRET}\n`)})`];
  writeFileSync(
    join(home, '.config', 'tsq', 'connections.json'),
    JSON.stringify({
      connections: [
        { name: 'prod', url: live.emu.url, loadUrl: live.emu.loadUrl, username: 'tsadmin', passwordCommand: keychain },
        { name: 'secure', url: tlsServer.url, username: 'tsadmin' },
      ],
    }),
  );
  const repoMarker = join(home, 'repo-command-ran');
  writeFileSync(join(repo, 'tsq.json'), JSON.stringify(repoTsqJson, null, 2).replaceAll('REPO_MARKER', repoMarker));
  writeFileSync(join(repo, 'q.tsq'), "@datasource 'flights'\n[origin] [delay] top 3\n");
  return { home, repo, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, userCommandRan: () => existsSync(userMark), repoMarker };
}

/** A passwordCommand of the repository's: it leaves a mark (REPO_MARKER) when it runs. */
const REPO_COMMAND = [process.execPath, '-e', "require('fs').writeFileSync('REPO_MARKER', 'ran'); process.stdout.write('x')"];

function noLeak(run: TsqRun): void {
  assert.ok(!run.stdout.includes(SECRET) && !run.stderr.includes(SECRET), 'the password appears in the output');
  assert.deepEqual(attacker.requests.filter((r) => r.body.includes(SECRET) || (r.authorization ?? '').includes(SECRET)), [], 'the repository\'s server saw the password');
}

describe('a hostile tsq.json and the command line', () => {
  test('redefining the user\'s prod: TSQ_PASSWORD goes to the user\'s own service, with a warning naming the file', async () => {
    const { repo, env } = setup({ connections: [{ name: 'prod', url: attacker.url, username: 'tsadmin' }] });
    const before = attacker.requests.length;
    const r = await tsq(['objects', '--connection', 'prod', '--format', 'json'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /"flights"/i);
    assert.match(r.stderr, new RegExp(`${join(repo, 'tsq.json').replaceAll('/', '\\/')}: connection "prod" is ignored: your own connection`));
    assert.equal(attacker.requests.length, before, 'the repository\'s server got a request');
    noLeak(r);
  });

  test('redefining prod with no TSQ_PASSWORD: the user\'s keychain command runs and its output goes to the user\'s service only', async () => {
    const { repo, env, userCommandRan } = setup({ connections: [{ name: 'PROD', url: attacker.url, username: 'tsadmin' }], default: 'prod' });
    const before = attacker.requests.length;
    const r = await tsq(['check', 'q.tsq'], { cwd: repo, env });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(userCommandRan(), 'the user\'s own passwordCommand ran');
    assert.equal(attacker.requests.length, before);
    noLeak(r);
  });

  test('the repository\'s own default connection: tsq check and tsq query refuse with exit 3 before sending anything', async () => {
    const { repo, env, repoMarker } = setup({ connections: [{ name: 'evil', url: attacker.url, username: 'tsadmin', passwordCommand: REPO_COMMAND }], default: 'evil' });
    const before = attacker.requests.length;
    for (const args of [['check', 'q.tsq'], ['query', 'q.tsq'], ['objects']]) {
      const r = await tsq(args, { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
      assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /comes from .*tsq\.json, a file of this project, not from you/);
      assert.match(r.stderr, /run "tsq trust" in /);
      assert.match(r.stderr, /"passwordCommand" of connection "evil" is ignored/);
      noLeak(r);
    }
    assert.equal(attacker.requests.length, before, 'the repository\'s server got a request');
    assert.equal(existsSync(repoMarker), false, 'the repository\'s passwordCommand ran');
  });

  test('the repository\'s passwordCommand never runs, even once the file is approved', async () => {
    const { repo, env, repoMarker } = setup({ connections: [{ name: 'team', url: live.emu.url, username: 'tsadmin', passwordCommand: REPO_COMMAND }], default: 'team' });
    assert.equal((await tsq(['trust'], { cwd: repo, env })).code, 0);
    // approved, but no password source of the user's: the prompt is not possible (no terminal) → exit 3
    const check = await tsq(['check', 'q.tsq'], { cwd: repo, env });
    assert.equal(check.code, 3, check.stderr);
    assert.match(check.stderr, /No password for tsadmin/);
    const query = await tsq(['query', 'q.tsq', '--format', 'csv'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal(query.code, 0, query.stderr);
    assert.equal(existsSync(repoMarker), false, 'the repository\'s passwordCommand ran');
  });

  test('redirecting only loadUrl of prod: tsq load logs in to the user\'s own data-load API', async () => {
    const { repo, env } = setup({ connections: [{ name: 'prod', url: live.emu.url, loadUrl: attacker.url, username: 'tsadmin' }] });
    const csv = join(repo, 'prices.csv');
    writeFileSync(csv, readFileSync(join(DEMO, 'new-stock-prices.csv')));
    const before = attacker.requests.length;
    const r = await tsq(['load', csv, '--table', STOCKS, '--connection', 'prod', '--json'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { rowsWritten: number }).rowsWritten, 45);
    assert.equal(attacker.requests.length, before, 'the repository\'s server got a request');
    noLeak(r);
  });

  test('a loadUrl on another host in the repository\'s own approved connection is dropped', async () => {
    const { repo, env } = setup({ connections: [{ name: 'team', url: live.emu.url, loadUrl: attacker.url.replace('127.0.0.1', 'localhost'), username: 'tsadmin' }] });
    const r = await tsq(['trust'], { cwd: repo, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /"loadUrl" of connection "team" is ignored: it is on another host/);
  });

  test('weakening TLS of the user\'s secure (rejectUnauthorized: false, or a caFile of the repository\'s) changes nothing: exit 7, no request', async () => {
    for (const weak of [{ rejectUnauthorized: false }, { caFile: certFile }]) {
      const { repo, env } = setup({ connections: [{ name: 'secure', url: tlsServer.url, username: 'tsadmin', ...weak }] });
      const r = await tsq(['objects', '--connection', 'secure'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
      assert.equal(r.code, 7, r.stderr);
      noLeak(r);
      // and as a connection of its own, approved: the TLS fields are still not taken from the project
      const own = setup({ connections: [{ name: 'mine', url: tlsServer.url, username: 'tsadmin', ...weak }] });
      const trusted = await tsq(['trust'], { cwd: own.repo, env: own.env });
      assert.match(trusted.stderr, /is ignored: a project file may not change how certificates are checked/);
      const r2 = await tsq(['objects', '--connection', 'mine'], { cwd: own.repo, env: { ...own.env, TSQ_PASSWORD: SECRET } });
      assert.equal(r2.code, 7, r2.stderr);
    }
    assert.deepEqual(tlsServer.requests, [], 'a request got through TLS');
  });

  test('approve, use, the file is edited, asked again, approve again', async () => {
    const project = { connections: [{ name: 'team', url: live.emu.url, username: 'tsadmin' }], default: 'team', defaultDataSource: 'flights' };
    const { repo, env } = setup(project);
    const run = () => tsq(['objects', '--format', 'json'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal((await run()).code, 3);
    const approve = await tsq(['trust'], { cwd: repo, env });
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stderr, new RegExp(`Approved ${join(repo, 'tsq.json').replaceAll('/', '\\/')}: your password or token may go to ${live.emu.url.replaceAll('/', '\\/')} as tsadmin`));
    assert.equal((await run()).code, 0);
    const list = await tsq(['trust', '--list'], { cwd: repo, env });
    assert.match(list.stdout, new RegExp(join(repo, 'tsq.json').replaceAll('/', '\\/')));
    writeFileSync(join(repo, 'tsq.json'), JSON.stringify({ ...project, connections: [{ name: 'team', url: attacker.url, username: 'tsadmin' }] }));
    const edited = await run();
    assert.equal(edited.code, 3);
    assert.match(edited.stderr, /It changed since you approved it/);
    noLeak(edited);
    writeFileSync(join(repo, 'tsq.json'), JSON.stringify(project));
    assert.equal((await tsq(['trust'], { cwd: repo, env })).code, 0);
    assert.equal((await run()).code, 0);
    assert.equal((await tsq(['trust', '--revoke'], { cwd: repo, env })).code, 0);
    assert.equal((await run()).code, 3);
  });

  test('tsq trust shows a shadowed entry with its address and leaves it unapproved: when the user renames their own prod, the repository\'s prod is asked about again', async () => {
    const { home, repo, env } = setup({ connections: [{ name: 'team', url: live.emu.url, username: 'tsadmin' }, { name: 'prod', url: attacker.url, username: 'tsadmin' }], default: 'team' });
    const trusted = await tsq(['trust'], { cwd: repo, env });
    assert.equal(trusted.code, 0, trusted.stderr);
    // every entry is shown with the address and user it would receive, the shadowed one included
    assert.ok(trusted.stderr.includes(`team: tsadmin at ${live.emu.url}\n`), trusted.stderr);
    assert.ok(trusted.stderr.includes(`prod: tsadmin at ${attacker.url} — NOT approved: your own connection "prod"`), trusted.stderr);
    assert.match(trusted.stderr, new RegExp(`may go to ${live.emu.url.replaceAll('/', '\\/')} as tsadmin\\. An edit`));
    const list = await tsq(['trust', '--list'], { cwd: repo, env });
    assert.ok(!list.stdout.includes(attacker.url), `the shadowed entry is not recorded as approved: ${list.stdout}`);
    // the user renames their own prod: the repository's prod is no longer shadowed, and not approved
    const userFile = join(home, '.config', 'tsq', 'connections.json');
    writeFileSync(userFile, readFileSync(userFile, 'utf8').replace('"name":"prod"', '"name":"prod-old"'));
    const before = attacker.requests.length;
    const r = await tsq(['objects', '--connection', 'prod'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /your own connection of that name was used instead, so this entry was not part of that approval/);
    assert.match(r.stderr, /run "tsq trust" in /);
    assert.equal(attacker.requests.length, before, 'the repository\'s server got a request');
    noLeak(r);
    // the entry that was approved still works, with no new question
    const team = await tsq(['objects', '--connection', 'team', '--format', 'json'], { cwd: repo, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal(team.code, 0, team.stderr);
    // asked again, tsq trust now shows prod as one it approves
    const again = await tsq(['trust'], { cwd: repo, env });
    assert.ok(again.stderr.includes(`prod: tsadmin at ${attacker.url}\n`), again.stderr);
    assert.equal(attacker.requests.length, before);
  });

  test('a revoke and an approval at the same time: neither is lost (trusted.json under a lock; the first change is held between its read and its write)', async () => {
    const { home, repo, env } = setup({ connections: [{ name: 'one', url: live.emu.url, username: 'tsadmin' }] });
    const repo2 = join(home, 'src', 'other');
    mkdirSync(join(repo2, '.git'), { recursive: true });
    writeFileSync(join(repo2, 'tsq.json'), JSON.stringify({ connections: [{ name: 'two', url: attacker.url, username: 'tsadmin' }] }));
    assert.equal((await tsq(['trust'], { cwd: repo2, env })).code, 0);
    const pause = join(home, 'pause');
    mkdirSync(pause);
    // A: approves repo, and stops between reading trusted.json and writing it back
    const a = startTsq(['trust'], { cwd: repo, env: { ...env, TSQ_TEST_TRUST_PAUSE: pause } });
    await until(() => existsSync(join(pause, 'paused')) || a.output().code !== null);
    assert.ok(existsSync(join(pause, 'paused')), `tsq trust did not pause: ${a.output().stderr}`);
    // B: revokes repo2 meanwhile; it must wait for A (it says so) rather than write past it
    const b = startTsq(['trust', '--revoke'], { cwd: repo2, env });
    await Promise.race([b.done, waitForOutput(b.child, b.output, (o) => /Waiting for another tsq/.test(o.stderr)).catch(() => undefined)]);
    const bFinishedFirst = b.output().code !== null;
    writeFileSync(join(pause, 'go'), '');
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(rb.stderr, /Withdrew the approval/);
    assert.equal(bFinishedFirst, false, 'the revoke did not wait for the approval under way');
    const list = await tsq(['trust', '--list'], { cwd: repo, env });
    assert.ok(list.stdout.includes(join(repo, 'tsq.json')), `the approval was lost: ${list.stdout}`);
    assert.ok(!list.stdout.includes(join(repo2, 'tsq.json')), `the revoke was lost: ${list.stdout}`);
    const before = attacker.requests.length;
    const r = await tsq(['objects', '--connection', 'two'], { cwd: repo2, env: { ...env, TSQ_PASSWORD: SECRET } });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(attacker.requests.length, before);
    assert.equal(existsSync(join(home, '.config', 'tsq', 'trusted.json.lock')), false, 'the lock is released');
  });

  test('a lock left behind by a process that is gone is taken over', async () => {
    const { home, repo, env } = setup({ connections: [{ name: 'one', url: live.emu.url, username: 'tsadmin' }] });
    mkdirSync(join(home, '.config', 'tsq'), { recursive: true });
    // a pid that no process has (above the kernel's pid_max) on this host, written just now
    writeFileSync(join(home, '.config', 'tsq', 'trusted.json.lock'), `99999999 ${hostname()} ${Date.now()} dead`);
    const r = await tsq(['trust'], { cwd: repo, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(join(home, '.config', 'tsq', 'trusted.json.lock')), false);
    assert.match((await tsq(['trust', '--list'], { cwd: repo, env })).stdout, /one: /);
  });

  test('a relative XDG_CONFIG_HOME is ignored (XDG Base Directory spec): a cloned repository\'s cfg/tsq/connections.json is not the user\'s file', async () => {
    const { repo, env, repoMarker, userCommandRan } = setup({});
    rmSync(join(repo, 'tsq.json'));
    mkdirSync(join(repo, 'cfg', 'tsq'), { recursive: true });
    const planted = { connections: [{ name: 'prod', url: attacker.url, username: 'tsadmin', passwordCommand: REPO_COMMAND.map((a) => a.replaceAll('REPO_MARKER', repoMarker)) }, { name: 'planted', url: attacker.url, username: 'tsadmin' }] };
    writeFileSync(join(repo, 'cfg', 'tsq', 'connections.json'), JSON.stringify(planted));
    writeFileSync(join(repo, 'cfg', 'tsq', 'trusted.json'), JSON.stringify({ approvals: [] }));
    const before = attacker.requests.length;
    const relative = { ...env, XDG_CONFIG_HOME: 'cfg' };
    const r = await tsq(['objects', '--connection', 'prod', '--format', 'json'], { cwd: repo, env: relative });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(userCommandRan(), 'the user\'s own prod (~/.config) was used');
    assert.equal(existsSync(repoMarker), false, 'the repository\'s passwordCommand ran');
    const planted2 = await tsq(['objects', '--connection', 'planted'], { cwd: repo, env: { ...relative, TSQ_PASSWORD: SECRET } });
    assert.equal(planted2.code, 2, planted2.stderr);
    assert.match(planted2.stderr, /no connection named "planted"/);
    assert.equal(attacker.requests.length, before, 'the repository\'s server got a request');
    noLeak(r);
    noLeak(planted2);
  });

  test('the user\'s own connections keep working from a folder with no tsq.json, with no new prompt', async () => {
    const { home, env, userCommandRan } = setup({});
    rmSync(join(home, 'src', 'cloned', 'tsq.json'));
    const r = await tsq(['objects', '--connection', 'prod'], { cwd: join(home, 'src', 'cloned'), env });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(userCommandRan());
    assert.equal(r.stderr, '');
  });
});

/** Starts `tsq lsp` in `cwd`, initializes, opens q.tsq; returns the showMessage texts and diagnostics seen. */
async function lspSession(cwd: string, env: Record<string, string>): Promise<{ messages: string[]; diagnostics: unknown[]; stderr: string }> {
  const child = spawn(process.execPath, [CLI_JS, 'lsp'], { cwd, env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const messages: string[] = [];
  const diagnostics: unknown[] = [];
  let resolveDiagnostics: () => void = () => undefined;
  const gotDiagnostics = new Promise<void>((resolve) => (resolveDiagnostics = resolve));
  connection.onNotification('window/showMessage', (p: { message: string }) => {
    messages.push(p.message);
  });
  connection.onNotification('textDocument/publishDiagnostics', (p: { diagnostics: unknown[] }) => {
    diagnostics.push(...p.diagnostics);
    resolveDiagnostics();
  });
  connection.onRequest(() => null);
  connection.listen();
  try {
    const uri = `file://${join(cwd, 'q.tsq')}`;
    await connection.sendRequest('initialize', { processId: process.pid, rootUri: `file://${cwd}`, capabilities: {} });
    await connection.sendNotification('initialized', {});
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'tsq', version: 1, text: "@datasource 'flights'\n[origin] [delayz] top 3 sort\n" } });
    await Promise.race([gotDiagnostics, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    // give a catalog request time to go out, were it to
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
  } finally {
    connection.dispose();
    child.kill();
  }
  return { messages, diagnostics, stderr };
}

describe('a hostile tsq.json and tsq lsp', () => {
  test('TSQ_PASSWORD in the editor\'s environment never reaches the repository\'s server; the editor is told to approve', async () => {
    const { repo, env, repoMarker } = setup({ connections: [{ name: 'evil', url: attacker.url, username: 'tsadmin', passwordCommand: REPO_COMMAND }], default: 'evil' });
    const before = attacker.requests.length;
    const seen = await lspSession(repo, { ...env, TSQ_PASSWORD: SECRET });
    assert.equal(attacker.requests.length, before, 'the repository\'s server got a request');
    assert.equal(existsSync(repoMarker), false, 'the repository\'s passwordCommand ran on didOpen');
    assert.ok(seen.messages.some((m) => /this folder's connection needs your approval/.test(m) && m.includes('tsq trust')), `messages: ${seen.messages.join(' | ')}`);
    // syntax diagnostics still come: the stray "sort" with no column
    assert.ok(seen.diagnostics.length > 0, 'no diagnostics');
    assert.ok(!seen.stderr.includes(SECRET));
  });

  test('the repository\'s passwordCommand does not run on didOpen, even in an approved folder', async () => {
    const { repo, env, repoMarker } = setup({ connections: [{ name: 'team', url: live.emu.url, username: 'tsadmin', passwordCommand: REPO_COMMAND }] });
    assert.equal((await tsq(['trust'], { cwd: repo, env })).code, 0);
    await lspSession(repo, env);
    assert.equal(existsSync(repoMarker), false, 'the repository\'s passwordCommand ran on didOpen');
  });
});
