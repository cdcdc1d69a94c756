/**
 * End-to-end test of answers as code in a real VS Code (code-server in Chromium) against the demo
 * emulator: the in-host suite (suites/answers.js) saves a query as an Answer, opens it back as a query,
 * updates it after an edit and reads the re-exported search_query, and sees a bad column of an
 * .answer.tml file as a diagnostic inside the YAML string. Skipped without the tools unless
 * TSQ_E2E_REQUIRED=1.
 */
import { test } from 'node:test';
import { e2eSkip, startSession } from './harness';
import { reportInHost } from './report';

test('answers: save, open, update an Answer and check an .answer.tml in a real VS Code', { skip: e2eSkip(['dist/emulator.js']), timeout: 600_000 }, async (t) => {
  const session = await startSession({ name: 'answers', suite: 'answers.js', emulator: true });
  try {
    await reportInHost(t, session, 5);
  } finally {
    await session.close();
  }
});
