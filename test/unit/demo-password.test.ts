// The demo password that `npm start` hands the extension through TSQ_DEMO_PASSWORD is honoured only
// for a connection to the loopback interface (client/src/settingsMigration.ts loopbackDemoPassword).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopbackDemoPassword } from '../../client/src/settingsMigration';

test('a loopback emulator URL gets the demo password', () => {
  for (const url of ['http://127.0.0.1:8088', 'http://localhost:8088/', 'https://LOCALHOST', 'http://127.1.2.3:1', 'http://[::1]:8088']) {
    assert.equal(loopbackDemoPassword(url, 'admin'), 'admin', url);
  }
});

test('any other URL never gets it', () => {
  for (const url of [
    'https://analytics.example.com',
    'http://10.0.0.5:8088',
    'http://127.0.0.1.example.com:8088',
    'http://localhost.example.com',
    'http://user@evil.example.com:8088',
    'http://0.0.0.0:8088',
    'ftp://127.0.0.1/',
    'file:///tmp/x',
    'not a url',
    '',
  ]) {
    assert.equal(loopbackDemoPassword(url, 'admin'), undefined, url);
  }
});

test('no or an empty TSQ_DEMO_PASSWORD gives nothing', () => {
  assert.equal(loopbackDemoPassword('http://127.0.0.1:8088', undefined), undefined);
  assert.equal(loopbackDemoPassword('http://127.0.0.1:8088', ''), undefined);
});
