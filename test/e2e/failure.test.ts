/**
 * End-to-end test of a service that stops answering and comes back, in a real VS Code (code-server in
 * Chromium) against the demo emulator behind a proxy that can hang or refuse (the in-host suite,
 * suites/failure.js, runs the proxy and the steps): a hung searchdata ends with a timeout message within
 * tsq.http.queryTimeout; Cancel ends a hung run within a second; while the service is refused the
 * unknown-column error stays with a stale-columns notice; when it is back the connection heals by itself,
 * the next run succeeds and diagnostics are fresh without an edit; an edited url takes effect. The
 * times measured are reported as test diagnostics. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { e2eSkip, startSession } from './harness';
import { reportInHost } from './report';

test('a hung, refused and recovered service: timeouts, Cancel, self-healing, fresh diagnostics', { skip: e2eSkip(['dist/client.js', 'dist/server.js', 'dist/emulator.js']), timeout: 600_000 }, async (t) => {
  const session = await startSession({
    name: 'failure',
    suite: 'failure.js',
    emulator: true,
    settings: { 'tsq.http.queryTimeout': 3, 'tsq.http.metadataTimeout': 3, 'tsq.http.connectTimeout': 2 },
  });
  try {
    await reportInHost(t, session, 6);
    const file = join(session.workspace, '.failure-times.json');
    if (existsSync(file)) t.diagnostic(`measured (ms): ${readFileSync(file, 'utf8').replace(/\s+/g, ' ')}`);
  } finally {
    await session.close();
  }
});
