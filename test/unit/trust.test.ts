// The trust rules of common/src/trust.ts on real files in a temporary folder: what a project-level
// source may set, that it never shadows the user's names, where the upward search for tsq.json stops,
// which files it skips (another owner, writable by others), and the approval that an edit undoes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConnection, userConnectionsPath } from '../../common/src/connectionConfig';
import { ApprovalStore, fileDigest, findProjectFile, mergeConnectionLevels, projectConnection, type TrustedFields } from '../../common/src/trust';

function folders(): { root: string; home: string; repo: string; deep: string } {
  const root = mkdtempSync(join(tmpdir(), 'tsq-trust-'));
  const home = join(root, 'home');
  const repo = join(home, 'src', 'repo');
  const deep = join(repo, 'queries', 'q');
  mkdirSync(deep, { recursive: true });
  mkdirSync(join(home, '.config', 'tsq'), { recursive: true });
  return { root, home, repo, deep };
}

test('a project connection may not run a program, weaken TLS, or send the data-load login to another host', () => {
  const { connection, warnings } = projectConnection(
    { name: 'x', url: 'https://bi.example.com', loadUrl: 'https://evil.example.net:8442', username: 'u', passwordCommand: ['sh', '-c', 'id'], caFile: '/tmp/ca.pem', rejectUnauthorized: false },
    '/repo/tsq.json',
  );
  assert.deepEqual(connection, { name: 'x', url: 'https://bi.example.com', username: 'u' });
  assert.equal(warnings.length, 4);
  for (const field of ['passwordCommand', 'caFile', 'rejectUnauthorized', 'loadUrl']) assert.ok(warnings.some((w) => w.startsWith('/repo/tsq.json: "' + field + '"')), `${field}: ${warnings.join('\n')}`);
  // the cluster's data-load port on the same host is kept (seed-interface.md §4)
  assert.equal(projectConnection({ name: 'x', url: 'https://bi.example.com', loadUrl: 'https://bi.example.com:8442', username: 'u' }, 'f').connection.loadUrl, 'https://bi.example.com:8442');
});

test('a project never shadows a user-level name (compared without case); the user entry is kept whole', () => {
  const user = [{ name: 'prod', url: 'https://prod', username: 'me', passwordCommand: ['pass'], level: 'user' as const, source: 'connections.json' }];
  const project = [
    { name: 'PROD', url: 'https://attacker', username: 'me', level: 'project' as const, source: 'tsq.json' },
    { name: 'extra', url: 'https://extra', username: 'me', rejectUnauthorized: false, level: 'project' as const, source: 'tsq.json' },
  ];
  const merged = mergeConnectionLevels<TrustedFields>(user, project);
  assert.deepEqual(merged.connections.map((c) => [c.name, c.url, c.level]), [['prod', 'https://prod', 'user'], ['extra', 'https://extra', 'project']]);
  assert.deepEqual(merged.connections[0].passwordCommand, ['pass']);
  assert.ok(!('rejectUnauthorized' in merged.connections[1]));
  assert.match(merged.warnings[0], /^tsq\.json: connection "PROD" is ignored: your own connection of that name \(connections\.json\) is used/);
});

test('the upward search stops at the repository root and at home; a tsq.json above them does not count', () => {
  const { root, home, repo, deep } = folders();
  writeFileSync(join(root, 'tsq.json'), '{}'); // in a parent of home: a shared folder such as /tmp
  assert.deepEqual(findProjectFile(deep, home), {});
  writeFileSync(join(home, 'src', 'tsq.json'), '{}'); // above the repository
  mkdirSync(join(repo, '.git'));
  assert.deepEqual(findProjectFile(deep, home), {});
  writeFileSync(join(repo, 'tsq.json'), '{}');
  assert.deepEqual(findProjectFile(deep, home), { path: join(repo, 'tsq.json') });
  // outside a repository the search goes up to home, included
  const { home: home2, deep: deep2 } = folders();
  writeFileSync(join(home2, 'tsq.json'), '{}');
  assert.deepEqual(findProjectFile(deep2, home2), { path: join(home2, 'tsq.json') });
});

test('a tsq.json that others can write, or that another user owns, is skipped and said so', () => {
  const { home, repo, deep } = folders();
  const file = join(repo, 'tsq.json');
  writeFileSync(file, JSON.stringify({ connections: [{ name: 'c', url: 'http://c', username: 'u' }] }));
  chmodSync(file, 0o666);
  const found = findProjectFile(deep, home);
  assert.equal(found.path, undefined);
  assert.equal(found.skipped?.reason, 'others can write it');
  const r = resolveConnection({}, { cwd: deep, home, env: {}, allowDefault: true });
  assert.equal(r, undefined, 'no connection comes from the skipped file');
  chmodSync(file, 0o644);
  assert.equal(findProjectFile(deep, home).path, file);
  if (process.getuid?.() === 0) {
    chownSync(file, 4242, 4242);
    assert.match(findProjectFile(deep, home).skipped?.reason ?? '', /owned by another user \(uid 4242\)/);
  }
});

test('an approval covers the file as it was: an edit makes it unapproved again, and says it changed', () => {
  const { home, repo, deep } = folders();
  const file = join(repo, 'tsq.json');
  const text = JSON.stringify({ connections: [{ name: 'team', url: 'https://team.example.com', username: 'me' }] });
  writeFileSync(file, text);
  const where = { cwd: deep, home, env: {}, allowDefault: true };
  const before = resolveConnection({}, where)!;
  assert.deepEqual([before.level, before.approved, before.changedSinceApproval], ['project', false, false]);
  const store = new ApprovalStore({ env: {}, home });
  store.approve(file, text, [{ name: 'team', targets: ['https://team.example.com:443 me'] }]);
  assert.equal(resolveConnection({}, where)!.approved, true);
  writeFileSync(file, text.replace('team.example.com', 'team.example.net'));
  const after = resolveConnection({}, where)!;
  assert.deepEqual([after.approved, after.changedSinceApproval], [false, true]);
  assert.equal(store.revoke(file), true);
  assert.equal(store.revoke(file), false);
  // the store is the user's: another user's config folder does not approve anything here
  assert.equal(new ApprovalStore({ env: { XDG_CONFIG_HOME: join(home, 'elsewhere') }, home }).isApproved(file, text), false);
});

test('an approval covers the entries it recorded, one by one; an older record covers the targets it lists', () => {
  const { home, repo, deep } = folders();
  const file = join(repo, 'tsq.json');
  const text = JSON.stringify({ connections: [{ name: 'team', url: 'https://team.example.com', username: 'me' }, { name: 'prod', url: 'https://evil.example.net', username: 'me' }] });
  writeFileSync(file, text);
  const where = { cwd: deep, home, env: {}, allowDefault: false };
  const store = new ApprovalStore({ env: {}, home });
  store.approve(file, text, [{ name: 'team', targets: ['https://team.example.com:443 me'] }]);
  assert.equal(resolveConnection({ connection: 'team' }, where)!.approved, true);
  const prod = resolveConnection({ connection: 'prod' }, where)!;
  assert.deepEqual([prod.approved, prod.changedSinceApproval, prod.notInApproval], [false, false, true]);
  // a record written before entries were recorded: what its credentials list is covered, nothing else
  writeFileSync(store.path, JSON.stringify({ approvals: [{ file, sha256: fileDigest(text), credentials: ['https://team.example.com:443 me'], approvedAt: '2026-01-01T00:00:00Z' }] }));
  assert.equal(resolveConnection({ connection: 'team' }, where)!.approved, true);
  assert.equal(resolveConnection({ connection: 'prod' }, where)!.approved, false);
  // an entry recorded under its name but now pointing elsewhere is not covered
  store.approve(file, text, [{ name: 'team', targets: ['https://team.example.com:443 me'] }, { name: 'prod', targets: ['https://prod.example.com:443 me'] }]);
  assert.equal(resolveConnection({ connection: 'prod' }, where)!.approved, false);
});

test('a relative XDG_CONFIG_HOME is ignored: the store and the connection file stay in ~/.config', () => {
  const { home } = folders();
  assert.equal(new ApprovalStore({ env: { XDG_CONFIG_HOME: 'cfg' }, home }).path, join(home, '.config', 'tsq', 'trusted.json'));
  assert.equal(userConnectionsPath({ env: { XDG_CONFIG_HOME: './cfg' }, home }), join(home, '.config', 'tsq', 'connections.json'));
  assert.equal(userConnectionsPath({ env: { XDG_CONFIG_HOME: join(home, 'x') }, home }), join(home, 'x', 'tsq', 'connections.json'));
});
