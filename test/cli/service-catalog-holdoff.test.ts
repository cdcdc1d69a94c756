// The service catalog of a language server without TSQ's catalog (Neovim, `tsq check`) against the real
// emulator with a wrong password: one failed login, then no further login attempt until the hold-off
// ends (doubled after each failure), however many completions and validations ask; `clear()` (a new
// connection or password) and a success end it. Before, every request logged in again: with a service
// that locks an account after a few failed logins, typing in one file locked the user out.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthenticationError } from '../../common/src/api';
import { CATALOG_HOLD_OFF_MS, ServiceCatalogProvider } from '../../common/src/catalog';
import { startLive, type Live } from '../emulator/client-support';

let live: Live;
before(async () => {
  live = await startLive();
});
after(async () => {
  await live?.stop();
});

test('a wrong password: one login attempt per hold-off, not one per request; clear() and the right password end it', async () => {
  let password = 'not-the-password';
  let passwordReads = 0;
  let clock = 1_000_000;
  const logs: string[] = [];
  const client = live.client({ username: 'tsadmin', password: '' }, {
    password: undefined,
    getPassword: () => {
      passwordReads++;
      return password;
    },
  });
  const catalog = new ServiceCatalogProvider(client, { now: () => clock, log: (m) => logs.push(m) });

  assert.equal(await catalog.getDataSources(), undefined);
  assert.ok(catalog.lastError instanceof AuthenticationError, String(catalog.lastError));
  const firstAttempt = passwordReads;
  assert.ok(firstAttempt >= 1, 'the first request logs in');

  // a burst of editor requests during the hold-off: no login at all, the same error, one log line
  for (let i = 0; i < 25; i++) {
    assert.equal(await catalog.getDataSources(), undefined);
    assert.equal(await catalog.getColumns('flights'), undefined);
    assert.deepEqual(await catalog.getColumnValues('flights', 'origin', 'S'), []);
  }
  assert.equal(passwordReads, firstAttempt);
  assert.ok(catalog.lastError instanceof AuthenticationError);
  assert.equal(logs.length, 1, logs.join('\n'));
  assert.match(logs[0]!, /HTTP 401.*not asked again for 60 s/s);

  // the hold-off ends: one more attempt, which fails and doubles the hold-off
  clock += CATALOG_HOLD_OFF_MS.authentication.first;
  assert.equal(await catalog.getDataSources(), undefined);
  const secondAttempt = passwordReads;
  assert.ok(secondAttempt > firstAttempt);
  clock += CATALOG_HOLD_OFF_MS.authentication.first;
  assert.equal(await catalog.getDataSources(), undefined);
  assert.equal(passwordReads, secondAttempt, 'still held off: the second hold-off is twice as long');

  // the user fixes the password: clear() (tsq/catalogChanged, a reconnect) asks at once
  password = 'admin';
  catalog.clear();
  const sources = await catalog.getDataSources();
  assert.ok(sources?.some((d) => d.name === 'flights'), JSON.stringify(sources));
  assert.ok(passwordReads > secondAttempt);
  assert.equal(catalog.lastError, undefined);
});

test('an unreachable service is held off briefly (doubling), and a success leaves no hold-off', async () => {
  let clock = 0;
  let calls = 0;
  let up = false;
  const real = live.client();
  const catalog = new ServiceCatalogProvider(() => {
    calls++;
    if (!up) throw new Error('connect ECONNREFUSED 127.0.0.1:9');
    return real;
  }, { now: () => clock });
  const first = CATALOG_HOLD_OFF_MS.other.first;
  assert.equal(await catalog.getDataSources(), undefined);
  assert.equal(calls, 1);
  clock += first - 1;
  assert.equal(await catalog.getDataSources(), undefined);
  assert.equal(calls, 1, 'held off');
  clock += 1;
  assert.equal(await catalog.getDataSources(), undefined);
  assert.equal(calls, 2, 'asked again when the hold-off ends');
  clock += first;
  assert.equal(await catalog.getDataSources(), undefined);
  assert.equal(calls, 2, 'the second hold-off is twice as long');
  up = true;
  clock += first;
  assert.ok((await catalog.getDataSources())?.length, 'the service is back');
  assert.equal(calls, 3);
  assert.ok((await catalog.getColumns('flights'))?.columns.length, 'a success leaves no hold-off behind');
});
