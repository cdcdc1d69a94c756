// @ts-check
// A minimal test library for in-host suites (code that runs inside VS Code's extension host with the
// real `vscode` API). A suite module is `module.exports = defineSuite([{ name, fn }, ...])`, which
// exports `run(options?)`:
//   - the end-to-end runner extension (test/e2e/runner-extension) calls
//     `run({ throwOnFailure: false, onResult })` and writes the results to a JSON file;
//   - `@vscode/test-electron` (npm run test:vscode) calls `run()` through test/e2e/suites/index.js,
//     which rejects when a test failed.
// Tests run in order (later tests may rely on state made by earlier ones, like a connection).
'use strict';
const vscode = require('vscode');

/** The extension under test (package.json publisher `tsq`, name `tsq`). */
const EXTENSION_ID = 'tsq.tsq';

/**
 * @typedef {{ name: string, fn: () => Promise<void> | void, timeoutMs?: number }} TestCase
 * @typedef {{ name: string, ok: boolean, durationMs: number, error?: string }} TestResult
 */

/**
 * Wraps a list of test cases into a suite module.
 * @param {TestCase[]} tests run in order; each has a timeout (default 60 000 ms)
 * @returns {{ tests: TestCase[], run(options?: { throwOnFailure?: boolean, onResult?: (r: TestResult) => void, grep?: RegExp }): Promise<TestResult[]> }}
 */
function defineSuite(tests) {
  return {
    tests,
    async run(options = {}) {
      const { throwOnFailure = true, onResult = () => {}, grep } = options;
      /** @type {TestResult[]} */
      const results = [];
      for (const t of tests) {
        if (grep && !grep.test(t.name)) continue;
        const started = Date.now();
        /** @type {TestResult} */
        let r;
        try {
          await withTimeout(Promise.resolve().then(t.fn), t.timeoutMs ?? 60_000, t.name);
          r = { name: t.name, ok: true, durationMs: Date.now() - started };
        } catch (err) {
          r = { name: t.name, ok: false, durationMs: Date.now() - started, error: err instanceof Error ? err.stack || err.message : String(err) };
        }
        results.push(r);
        onResult(r);
        console.log(`${r.ok ? 'ok' : 'not ok'} - ${r.name}${r.ok ? '' : `\n${r.error}`}`);
      }
      const failed = results.filter((r) => !r.ok);
      if (throwOnFailure && failed.length) throw new Error(`${failed.length} of ${results.length} in-host tests failed: ${failed.map((f) => f.name).join(', ')}`);
      return results;
    },
  };
}

/**
 * Rejects with a clear message when `promise` does not settle within `ms` milliseconds.
 * @template T @param {Promise<T>} promise @param {number} ms @param {string} what @returns {Promise<T>}
 */
function withTimeout(promise, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Polls `probe` until it returns a truthy value (which is returned) or `timeoutMs` passes; then
 * throws naming `what` and the last value seen. Probes are state checks, not sleeps.
 * @template T @param {() => T | Promise<T>} probe @param {string} what @param {number} [timeoutMs]
 * @returns {Promise<NonNullable<T>>}
 */
async function waitFor(probe, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  /** @type {unknown} */
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last) return /** @type {NonNullable<T>} */ (last);
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${describe(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** @param {unknown} v */
function describe(v) {
  if (v instanceof Error) return v.message;
  try { return JSON.stringify(v); } catch { return String(v); }
}

/** @returns {vscode.Uri} the first workspace folder's URI (the copy of test/fixtures/e2e-workspace) */
function workspaceRoot() {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('no workspace folder is open');
  return f.uri;
}

/**
 * Opens a workspace file in an editor.
 * @param {string} relativePath e.g. 'smoke.tsq'
 * @returns {Promise<vscode.TextEditor>}
 */
async function openWorkspaceFile(relativePath) {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceRoot(), relativePath));
  return vscode.window.showTextDocument(doc, { preview: false });
}

/**
 * Opens an untitled `.tsq`-language document with `content`.
 * @param {string} content @returns {Promise<vscode.TextEditor>}
 */
async function openUntitledTsq(content) {
  const doc = await vscode.workspace.openTextDocument({ language: 'tsq', content });
  return vscode.window.showTextDocument(doc, { preview: false });
}

/**
 * Waits until the extension is active and its language client is ready, and returns its
 * automation API (see the extension contract: getConnectionState(), whenLanguageClientReady()).
 * @returns {Promise<{ getConnectionState(): { name?: string, state: string, error?: string }, whenLanguageClientReady(): Promise<void> }>}
 */
async function extensionApi() {
  const ext = await waitFor(() => vscode.extensions.getExtension(EXTENSION_ID), `extension ${EXTENSION_ID} to be installed`);
  const api = ext.isActive ? ext.exports : await ext.activate();
  if (!api || typeof api.getConnectionState !== 'function') throw new Error(`${EXTENSION_ID} activate() did not return the automation API; got ${describe(api)}`);
  await withTimeout(api.whenLanguageClientReady(), 60_000, 'whenLanguageClientReady()');
  return api;
}

/**
 * Asks every completion provider for `document` at `position` (what the suggest widget asks).
 * @param {vscode.TextDocument} document @param {vscode.Position} position @param {string} [triggerCharacter]
 * @returns {Promise<vscode.CompletionItem[]>}
 */
async function completionsAt(document, position, triggerCharacter) {
  /** @type {vscode.CompletionList | undefined} */
  const list = await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', document.uri, position, triggerCharacter);
  return list ? list.items : [];
}

/** @param {vscode.CompletionItem} item @returns {string} the label's text */
function labelOf(item) {
  return typeof item.label === 'string' ? item.label : item.label.label;
}

/**
 * Waits until the diagnostics of `uri` satisfy `predicate`; returns them.
 * @param {vscode.Uri} uri @param {(d: vscode.Diagnostic[]) => boolean} predicate @param {string} what
 * @returns {Promise<vscode.Diagnostic[]>}
 */
async function waitForDiagnostics(uri, predicate, what, timeoutMs = 60_000) {
  return waitFor(() => {
    const d = vscode.languages.getDiagnostics(uri);
    return predicate(d) ? d : undefined;
  }, `${what} (diagnostics of ${uri.toString()})`, timeoutMs);
}

/**
 * Throws `message` (with `detail` as JSON) unless `condition` holds.
 * @param {unknown} condition @param {string} message @param {unknown} [detail] @returns {asserts condition}
 */
function check(condition, message, detail) {
  if (!condition) throw new Error(detail === undefined ? message : `${message}: ${describe(detail)}`);
}

/** The emulator's base URL (TSQ_E2E_EMULATOR_URL, set by test/e2e/harness.ts); throws when it is not set. */
function emulatorUrl() {
  const url = process.env.TSQ_E2E_EMULATOR_URL;
  if (!url) throw new Error('TSQ_E2E_EMULATOR_URL is not set: start the emulator with --demo and set it');
  return url;
}

/** The first step of most suites: tsadmin connects to the emulator (TSQ: connect, as a test hands it the password). */
const connectAsTsadmin = {
  name: 'tsadmin connects to the emulator',
  async fn() {
    const api = await extensionApi();
    const ok = await vscode.commands.executeCommand('tsq.connectToEmulator', { name: 'emulator', url: emulatorUrl(), username: 'tsadmin', password: 'admin' });
    check(ok === true, 'tsq.connectToEmulator resolves true', { ok, state: api.getConnectionState() });
  },
};

module.exports = { EXTENSION_ID, defineSuite, waitFor, withTimeout, workspaceRoot, openWorkspaceFile, openUntitledTsq, extensionApi, completionsAt, labelOf, waitForDiagnostics, check, emulatorUrl, connectAsTsadmin };
