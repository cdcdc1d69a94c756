/**
 * End-to-end test of navigation in a real VS Code (code-server in Chromium), with no connection: the
 * in-host suite (suites/navigation.js) renames a column from a `.tsq` file and sees the edit in an
 * `.answer.tml`, opens the server's `tsq:` document of a column, and finds one set of ▶ Run lenses, the
 * server's. Skipped without the tools unless TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import { e2eSkip, startSession } from './harness';
import { reportInHost } from './report';

test('navigation in VS Code: rename across a .tsq file and an Answer TML, the tsq: document, the server\'s Run lenses', { skip: e2eSkip(), timeout: 420_000 }, async (t) => {
  const session = await startSession({ name: 'navigation', suite: 'navigation.js' });
  try {
    await reportInHost(t, session, 3);
  } finally {
    await session.close();
  }
});
