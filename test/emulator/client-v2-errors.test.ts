// Every error example of the REST API v2 OpenAPI document (test/fixtures/v2-error-examples.json, taken
// from thoughtspot/rest-api-sdk `api-spec/openapiSpecv3-2_0.json`, 26.8.0.cl) is answered by a real local
// HTTP server and read by the real client: its message holds the service's text, the error code and the
// trace id. Then the emulator's own v2 errors, read the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnalyticsServiceClient, AuthenticationError, PermissionError, ServiceError } from '../../common/src/api';
import { startCore } from './core-support';

interface Example {
  path: string;
  status: number;
  example: string;
  body: { error: { message: { code: number; incident_id_guid: string; trace_id_guid: string; debug: string } } };
}

const fixture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'v2-error-examples.json'), 'utf8')) as { examples: Example[] };

test(`each of the ${fixture.examples.length} error examples of the v2 document gives a message with the text, the code and the trace id`, async () => {
  assert.ok(fixture.examples.length > 100);
  let current: Example = fixture.examples[0]!;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(current.status, { 'content-type': 'application/json' }).end(JSON.stringify(current.body)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const ex of fixture.examples) {
      current = ex;
      // a given token, and a new client for each (a 401 ends a client's sign-in)
      const client = new AnalyticsServiceClient({ url, username: 'tsadmin', apiVersion: 'v2', bearer: { getToken: () => 'a-token' }, rateLimit: false });
      const m = ex.body.error.message;
      // updatePassword is not idempotent: one request, one answer
      const e = await client
        .updatePassword({ name: 'u', currentPassword: 'a', newPassword: 'b' })
        .then(
          () => assert.fail(`${ex.path} ${ex.status} ${ex.example}: no error`),
          (x: unknown) => x,
        )
        .finally(() => client.close());
      const what = `${ex.path} ${ex.status} ${ex.example}`;
      assert.ok(e instanceof ServiceError, what);
      assert.equal(e.status, ex.status, what);
      assert.equal(e.code, m.code, what);
      assert.equal(e.traceId, m.trace_id_guid, what);
      assert.equal(e.incidentId, m.incident_id_guid, what);
      assert.equal(e.serviceMessage, m.debug, what);
      assert.ok(e.message.includes(m.debug), `${what}: the text in ${e.message}`);
      assert.ok(e.message.includes(`error code ${m.code}`), `${what}: the code in ${e.message}`);
      assert.ok(e.message.includes(`trace id ${m.trace_id_guid}`), `${what}: the trace id in ${e.message}`);
      if (ex.status === 401) assert.ok(e instanceof AuthenticationError, what);
      if (ex.status === 403) assert.ok(e instanceof PermissionError, what);
    }
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test("the emulator's v2 errors have the documented shape, and the client reads them", async () => {
  const core = await startCore({ publicApi: 'v2' });
  try {
    const analyst = new AnalyticsServiceClient({ url: core.emu.url, username: 'analyst', password: 'analyst', apiVersion: 'v2' });
    try {
      const e = await analyst.addGroupPrivilege({ privilege: 'DATAMANAGEMENT', groupNames: ['Analysts'] }).then(
        () => assert.fail('an analyst may not change privileges'),
        (x: unknown) => x,
      );
      assert.ok(e instanceof PermissionError, String(e));
      assert.equal(e.code, 10023);
      assert.match(e.traceId ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(e.message.includes(`trace id ${e.traceId}`), e.message);
    } finally {
      await analyst.close();
    }
    const r = await fetch(`${core.emu.url}/api/rest/2.0/searchdata`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(r.status, 401);
    const body = (await r.json()) as Example['body'];
    assert.deepEqual(Object.keys(body.error.message).sort(), ['code', 'debug', 'incident_id_guid', 'trace_id_guid']);
    assert.equal(body.error.message.code, 10097);
  } finally {
    await core.stop();
  }
});
