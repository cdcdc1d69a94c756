// Where a password may go (client/src/credentials.ts): keyed by origin and user, never by a connection's
// name; passwords of the old name keys move only to the origin they were given for; workspace-defined
// connections need confirmation per origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  adoptLegacyPassword,
  connectionChanged,
  connectionOrigins,
  credentialKey,
  credentialOrigin,
  migrateLegacyPassword,
  settingsConnections,
  unconfirmedOrigins,
  type SecretStore,
} from '../../client/src/credentials';
import type { ConnectionSettings } from '../../common/src/connectionConfig';
import { splitPasswords } from '../../client/src/settingsMigration';

/** An in-memory secret store (VS Code's SecretStorage has the same three methods). */
class MemorySecrets implements SecretStore {
  readonly map = new Map<string, string>();
  async get(k: string): Promise<string | undefined> {
    return this.map.get(k);
  }
  async store(k: string, v: string): Promise<void> {
    this.map.set(k, v);
  }
  async delete(k: string): Promise<void> {
    this.map.delete(k);
  }
}

const prod: ConnectionSettings = { name: 'prod', url: 'https://analytics.example.com', username: 'ann' };
const attacker: ConnectionSettings = { name: 'prod', url: 'https://attacker.example', username: 'ann' };

test('the origin is scheme, host and port, normalized; path, user info, query and case do not count', () => {
  assert.equal(credentialOrigin('https://Analytics.Example.com'), 'https://analytics.example.com:443');
  assert.equal(credentialOrigin('https://analytics.example.com:443/callosum/v1?x=1#y'), 'https://analytics.example.com:443');
  assert.equal(credentialOrigin('HTTP://127.0.0.1:8088/'), 'http://127.0.0.1:8088');
  assert.equal(credentialOrigin('http://x.example'), 'http://x.example:80');
  assert.equal(credentialOrigin('http://[::1]:8088'), 'http://[::1]:8088');
  assert.equal(credentialOrigin('https://user:pw@analytics.example.com'), 'https://analytics.example.com:443');
  assert.equal(credentialOrigin('https://bücher.example'), 'https://xn--bcher-kva.example:443');
  for (const bad of ['ftp://x', 'file:///etc/passwd', 'not a url', '', 'javascript:alert(1)']) assert.throws(() => credentialOrigin(bad), /not/);
});

test('the key is origin + user name: another origin, port, scheme or user gets another key; the name never counts', () => {
  const k = credentialKey(prod.url, prod.username);
  assert.equal(k, 'tsq.credential/https://analytics.example.com:443/ann');
  assert.equal(credentialKey('https://analytics.example.com/', 'ann'), k);
  for (const [url, user] of [
    ['https://attacker.example', 'ann'],
    ['http://analytics.example.com', 'ann'],
    ['https://analytics.example.com:8443', 'ann'],
    ['https://analytics.example.com.attacker.example', 'ann'],
    ['https://analytics.example.com', 'bob'],
    ['https://analytics.example.com', 'Ann'],
  ]) assert.notEqual(credentialKey(url!, user!), k, `${url} ${user}`);
  assert.notEqual(credentialKey('https://a.example', 'x/y'), credentialKey('https://a.example', 'x'));
  assert.deepEqual(connectionOrigins({ url: 'https://a.example', loadUrl: 'https://a.example:8442' }), ['https://a.example:443', 'https://a.example:8442']);
  assert.deepEqual(connectionOrigins({ url: 'https://a.example', loadUrl: 'https://A.example/' }), ['https://a.example:443']);
});

test('an old-key password moves to the origin recorded at the last connection, not to where the workspace now points', async () => {
  const secrets = new MemorySecrets();
  secrets.map.set('tsq.password/prod', 's3cret');
  const out = await migrateLegacyPassword(secrets, attacker, { origin: 'https://analytics.example.com:443', username: 'ann' }, undefined);
  assert.deepEqual(out, { kind: 'moved', origin: 'https://analytics.example.com:443', username: 'ann', matches: false });
  assert.equal(secrets.map.get(credentialKey(prod.url, 'ann')), 's3cret');
  assert.equal(secrets.map.get(credentialKey(attacker.url, 'ann')), undefined);
  assert.equal(secrets.map.has('tsq.password/prod'), false);
  // afterwards the original origin still works
  assert.equal(await secrets.get(credentialKey(prod.url, prod.username)), 's3cret');
});

test('with no record, the user settings entry of that name says where it was given; the workspace never does', async () => {
  const secrets = new MemorySecrets();
  secrets.map.set('tsq.password/prod', 's3cret');
  const out = await migrateLegacyPassword(secrets, prod, undefined, prod);
  assert.equal(out.kind, 'moved');
  assert.equal(out.kind === 'moved' && out.matches, true);
  assert.equal(secrets.map.get(credentialKey(prod.url, 'ann')), 's3cret');

  const s2 = new MemorySecrets();
  s2.map.set('tsq.password/prod', 's3cret');
  // the connection exists only in workspace settings: unknown, nothing moves, the caller asks
  assert.deepEqual(await migrateLegacyPassword(s2, attacker, undefined, undefined), { kind: 'unknown' });
  assert.deepEqual([...s2.map.keys()], ['tsq.password/prod']);
  // the person says it belongs to this origin: adopted there only
  assert.equal(await adoptLegacyPassword(s2, prod), 's3cret');
  assert.deepEqual([...s2.map.keys()], [credentialKey(prod.url, 'ann')]);
});

test('a migration never overwrites a password already stored under the new key; no old key is no outcome', async () => {
  const secrets = new MemorySecrets();
  secrets.map.set('tsq.password/prod', 'old');
  secrets.map.set(credentialKey(prod.url, 'ann'), 'new');
  await migrateLegacyPassword(secrets, prod, { origin: credentialOrigin(prod.url), username: 'ann' }, undefined);
  assert.equal(secrets.map.get(credentialKey(prod.url, 'ann')), 'new');
  assert.deepEqual(await migrateLegacyPassword(new MemorySecrets(), prod, undefined, prod), { kind: 'none' });
});

test('settings: the user\'s entries win over a workspace entry of the same name; the workspace adds others without TLS fields', () => {
  const user = [prod];
  const { connections, warnings } = settingsConnections({ globalValue: user, workspaceValue: [attacker, { ...prod, name: 'PROD' }, { name: 'lab', url: 'https://lab.example', username: 'ann', rejectUnauthorized: false, caFile: '/tmp/evil.pem', loadUrl: 'https://evil.example' }] }, '/ws/.vscode/settings.json');
  assert.deepEqual(connections.map((c) => [c.name, c.url, c.level]), [['prod', prod.url, 'user'], ['lab', 'https://lab.example', 'project']]);
  assert.deepEqual(Object.keys(connections[1]).sort(), ['level', 'name', 'source', 'url', 'username']);
  assert.ok(warnings.some((w) => w.startsWith('/ws/.vscode/settings.json: connection "prod" is ignored: your own connection of that name (your user settings)')), warnings.join('\n'));
  assert.ok(warnings.some((w) => /"rejectUnauthorized" of connection "lab" is ignored/.test(w)));
  assert.equal(settingsConnections({ workspaceValue: [prod] }, 'ws').connections[0].level, 'project');
  assert.deepEqual(settingsConnections(undefined, 'ws').connections, []);
});

test('unconfirmed origins: each origin once; loopback only under npm start (TSQ_DEMO_PASSWORD)', () => {
  const two = { ...attacker, loadUrl: 'https://load.attacker.example' };
  assert.deepEqual(unconfirmedOrigins(two, 'project', []), ['https://attacker.example:443', 'https://load.attacker.example:443']);
  assert.deepEqual(unconfirmedOrigins(two, 'project', ['https://attacker.example:443']), ['https://load.attacker.example:443']);
  assert.deepEqual(unconfirmedOrigins(attacker, 'user', []), []);
  const local = { name: 'Local', url: 'http://127.0.0.1:8088', username: 'tsadmin' };
  assert.deepEqual(unconfirmedOrigins(local, 'project', []), ['http://127.0.0.1:8088']);
  assert.deepEqual(unconfirmedOrigins(local, 'project', [], true), []);
  assert.deepEqual(unconfirmedOrigins(attacker, 'project', [], true), ['https://attacker.example:443']);
});

test('a change of url, loadUrl, user name or TLS settings is a change; a trailing slash is not', () => {
  assert.equal(connectionChanged(prod, { ...prod, url: 'https://analytics.example.com/' }), false);
  assert.equal(connectionChanged(prod, attacker), true);
  assert.equal(connectionChanged(prod, { ...prod, loadUrl: 'https://analytics.example.com:8442' }), true);
  assert.equal(connectionChanged(prod, { ...prod, username: 'bob' }), true);
  assert.equal(connectionChanged(prod, { ...prod, name: 'renamed' }), false);
});

test('passwords found in settings keep the url and user they were written with', () => {
  const split = splitPasswords([{ name: 'prod', url: 'https://a.example', username: 'u', password: 'p' }, { name: 'x', password: 'q' }]);
  assert.deepEqual(split.credentials, [{ name: 'prod', url: 'https://a.example', username: 'u', password: 'p' }]);
});
