/**
 * The set-up of the end-to-end tests against a service where REST API v1 is gone (token.test.ts,
 * v2admin.test.ts, orgs.test.ts): an emulator started with `--public-api v2`, as on a current cloud build, and a
 * VS Code session whose one connection `cloud` is that emulator with the user tsadmin.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESULTS_DIR, startEmulator, startSession, type E2eSession } from './harness';

/**
 * Starts a fresh v2-only emulator (data in a new temporary folder, log `<RESULTS_DIR>/<name>-emulator.log`),
 * checks that it answers REST API v1 with 404, and runs `body` with its base URL (no trailing slash). Meanwhile
 * TSQ_DEMO_PASSWORD is `demoPassword` (unset when undefined: then the connection has no password at all);
 * afterwards it is restored and the emulator stopped, whatever `body` did.
 * @throws what `body` throws; AssertionError when v1 still answers.
 */
export async function withV2Emulator(name: string, demoPassword: string | undefined, body: (url: string) => Promise<void>): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const before = process.env.TSQ_DEMO_PASSWORD;
  if (demoPassword === undefined) delete process.env.TSQ_DEMO_PASSWORD;
  else process.env.TSQ_DEMO_PASSWORD = demoPassword; // the loopback demo password, as `npm start` gives it
  try {
    const emulator = await startEmulator(mkdtempSync(join(tmpdir(), `tsq-e2e-${name}-data-`)), join(RESULTS_DIR, `${name}-emulator.log`), ['--public-api', 'v2']);
    try {
      const v1 = await fetch(`${emulator.url}/callosum/v1/tspublic/v1/metadata/listobjectheaders?type=LOGICAL_TABLE`);
      assert.equal(v1.status, 404, 'the emulator answers as a service without REST API v1');
      await body(emulator.url);
    } finally {
      await emulator.stop();
    }
  } finally {
    if (before === undefined) delete process.env.TSQ_DEMO_PASSWORD;
    else process.env.TSQ_DEMO_PASSWORD = before;
  }
}

/** Runs `body` in a new VS Code session (`startSession`, named `name`) whose active connection `cloud` is `url` with the user tsadmin; closes it after. */
export async function withCloudSession(name: string, url: string, body: (session: E2eSession) => Promise<void>): Promise<void> {
  const session = await startSession({
    name,
    // the results editor tab beside the query, which the v2 runs read (token.test.ts)
    settings: { 'tsq.connections': [{ name: 'cloud', url, username: 'tsadmin' }], 'tsq.activeConnection': 'cloud', 'tsq.results.location': 'beside' },
  });
  try {
    await body(session);
  } finally {
    await session.close();
  }
}

/** A bearer token of tsadmin from the service's auth/token/full (valid one hour). @throws AssertionError unless it answers 200. */
export async function tsadminToken(url: string): Promise<string> {
  const answer = await fetch(`${url}/api/rest/2.0/auth/token/full`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'tsadmin', password: 'admin', validity_time_in_sec: 3600 }),
  });
  assert.equal(answer.status, 200);
  return ((await answer.json()) as { token: string }).token;
}
