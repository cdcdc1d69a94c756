/**
 * `npm run test:vscode`: runs the same in-host suites as the end-to-end tier (test/e2e/suites,
 * through suites/index.js) in a desktop VS Code that @vscode/test-electron downloads, with the
 * extension loaded from this folder (extensionDevelopmentPath) and the emulator started with --demo.
 * It needs a machine that can download VS Code (CI here cannot: the e2e tier uses code-server instead).
 * Environment: TSQ_E2E_SUITES (comma-separated suite files, default all), VSCODE_VERSION (default 'stable').
 * Exits 0 when every in-host test passed, 1 otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { ROOT, copyWorkspace, startEmulator, writeUserSettings } from './harness';

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-vscode-'));
  const workspace = join(dir, 'workspace');
  const userDataDir = join(dir, 'user-data');
  copyWorkspace(workspace);
  writeUserSettings(userDataDir);
  const emulator = await startEmulator(join(dir, 'emulator-data'), join(dir, 'emulator.log'));
  try {
    await runTests({
      version: process.env.VSCODE_VERSION || 'stable',
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: join(ROOT, 'test', 'e2e', 'suites', 'index.js'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes', '--user-data-dir', userDataDir],
      extensionTestsEnv: { TSQ_E2E_EMULATOR_URL: emulator.url, TSQ_E2E_USER_DATA_DIR: userDataDir, TSQ_E2E_SUITES: process.env.TSQ_E2E_SUITES },
    });
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const offline = /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN/.test(message);
    console.error(`test:vscode: ${message}${offline ? '\n(test:vscode downloads VS Code; where that is not possible, npm run test:e2e runs the same suites in code-server)' : ''}`);
    return 1;
  } finally {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().then((code) => process.exit(code), (err) => {
  console.error(`test:vscode: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
