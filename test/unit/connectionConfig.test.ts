// Where the command line and the language server in other editors find a connection and its password
// (common/src/connectionConfig.ts): flags, tsq.json up the folder tree, the user's connections.json,
// the default, and TSQ_PASSWORD / passwordCommand / prompt. Real files in a temporary folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionConfigError, MissingPasswordError, readPassword, resolveConnection, UnapprovedConnectionError, type ConnectionSettings, type ResolvedConnection } from '../../common/src/connectionConfig';

function layout(): { root: string; project: string; deep: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'tsq-conn-'));
  const project = join(root, 'project');
  const deep = join(project, 'a', 'b');
  const home = join(root, 'home');
  mkdirSync(deep, { recursive: true });
  mkdirSync(join(home, '.config', 'tsq'), { recursive: true });
  return { root, project, deep, home };
}

test('--url and --user make a connection; --url without --user is a usage error', () => {
  const { deep, home } = layout();
  const r = resolveConnection({ url: 'http://127.0.0.1:8088', user: 'tsadmin', insecure: true }, { cwd: deep, home, env: {}, allowDefault: true });
  assert.deepEqual(r?.connection, { name: 'http://127.0.0.1:8088', url: 'http://127.0.0.1:8088', username: 'tsadmin', rejectUnauthorized: false });
  assert.throws(() => resolveConnection({ url: 'http://x' }, { cwd: deep, home, env: {}, allowDefault: true }), ConnectionConfigError);
});

test('a named connection: tsq.json of the nearest folder above, and ~/.config/tsq/connections.json, whose names win', () => {
  const { project, deep, home } = layout();
  writeFileSync(join(project, 'tsq.json'), JSON.stringify({ connections: [{ name: 'dev', url: 'http://dev', username: 'a', password: 'in-a-file' }, { name: 'stage', url: 'http://stage', username: 'a' }] }));
  writeFileSync(join(home, '.config', 'tsq', 'connections.json'), JSON.stringify({ 'tsq.connections': [{ name: 'dev', url: 'http://other', username: 'b', caFile: 'ca.pem' }, { name: 'prod', url: 'https://prod', username: 'c', passwordCommand: ['pass', 'show', 'tsq'] }] }));
  const where = { cwd: deep, home, env: {}, allowDefault: true };
  // the user's own "dev" wins over the project's, with a warning naming the project file
  const dev = resolveConnection({ connection: 'dev', user: 'override' }, where)!;
  assert.equal(dev.connection.url, 'http://other');
  assert.equal(dev.connection.username, 'override');
  assert.equal(dev.connection.caFile, join(home, '.config', 'tsq', 'ca.pem'));
  assert.equal(dev.level, 'user');
  assert.ok(dev.warnings.some((w) => w.startsWith(join(project, 'tsq.json')) && /connection "dev" is ignored: your own connection/.test(w)), dev.warnings.join('\n'));
  assert.ok(dev.warnings.some((w) => /"password" of connection "dev" is ignored/.test(w)));
  const stage = resolveConnection({ connection: 'stage' }, where)!;
  assert.equal(stage.level, 'project');
  assert.equal(stage.approved, false);
  assert.deepEqual(resolveConnection({ connection: 'PROD' }, where)!.connection.passwordCommand, ['pass', 'show', 'tsq']);
  assert.throws(() => resolveConnection({ connection: 'nope' }, where), /no connection named "nope".*Known: dev, prod, stage/);
  // several connections and no default: the command line asks to choose; the server connects only when told
  assert.throws(() => resolveConnection({}, where), /Several connections are defined/);
  assert.equal(resolveConnection({}, { ...where, allowDefault: false }), undefined);
});

test('the default: "default" (or tsq.activeConnection), or the only connection; --config reads one file only', () => {
  const { project, home } = layout();
  writeFileSync(join(project, 'tsq.json'), JSON.stringify({ connections: [{ name: 'a', url: 'http://a', username: 'u' }, { name: 'b', url: 'http://b', username: 'u' }], default: 'b', defaultDataSource: 'flights' }));
  const r = resolveConnection({}, { cwd: project, home, env: {}, allowDefault: true })!;
  assert.equal(r.connection.name, 'b');
  assert.equal(r.files[0].defaultDataSource, 'flights');
  const other = join(project, 'other.json');
  writeFileSync(other, JSON.stringify([{ name: 'only', url: 'http://only', username: 'u' }]));
  assert.equal(resolveConnection({ config: 'other.json' }, { cwd: project, home, env: {}, allowDefault: true })!.connection.name, 'only');
  assert.throws(() => resolveConnection({ config: 'missing.json' }, { cwd: project, home, env: {}, allowDefault: true }), /does not exist/);
  writeFileSync(other, '{ not json');
  assert.throws(() => resolveConnection({ config: 'other.json' }, { cwd: project, home, env: {}, allowDefault: true }), /cannot be read/);
});

test('the password of an approved connection: TSQ_PASSWORD, else passwordCommand, else the prompt, else a MissingPasswordError', async () => {
  const user = (c: ConnectionSettings): ResolvedConnection => ({ connection: c, source: 'connections.json', level: 'user', files: [], warnings: [], approved: true });
  const conn = { name: 'x', url: 'http://x', username: 'u' };
  assert.equal(await readPassword(user(conn), { env: { TSQ_PASSWORD: 'from-env' }, prompt: () => Promise.resolve('typed') }), 'from-env');
  assert.equal(await readPassword(user({ ...conn, passwordCommand: [process.execPath, '-e', 'process.stdout.write("from-command\\n")'] }), { env: {} }), 'from-command');
  await assert.rejects(readPassword(user({ ...conn, passwordCommand: [process.execPath, '-e', 'process.exit(3)'] }), { env: {} }), /passwordCommand of connection "x" .* failed \(3\)/);
  assert.equal(await readPassword(user(conn), { env: {}, prompt: (q) => Promise.resolve(`typed for ${q}`) }), 'typed for Password of u at http://x: ');
  await assert.rejects(readPassword(user(conn), { env: {} }), MissingPasswordError);
  // a project connection that is not approved gets nothing: not TSQ_PASSWORD, not a prompt
  const project: ResolvedConnection = { connection: conn, source: '/repo/tsq.json', level: 'project', files: [], warnings: [], approved: false };
  let asked = false;
  await assert.rejects(readPassword(project, { env: { TSQ_PASSWORD: 'from-env' }, prompt: () => ((asked = true), Promise.resolve('typed')) }), UnapprovedConnectionError);
  assert.equal(asked, false);
});
