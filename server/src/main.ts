/**
 * Entry point of the TSQ language server (dist/server.js). Builds the connection and starts the server:
 *
 * - `node dist/server.js --stdio`: LSP over stdin/stdout, for any editor and for the protocol tests;
 *   `console.*` is redirected to the connection, so stdout carries LSP frames only;
 * - `--node-ipc` (how VS Code starts it, `TransportKind.ipc`), `--socket=N`, `--pipe=NAME`: as
 *   `vscode-languageserver/node` reads them; a process forked with an IPC channel and no flag uses IPC.
 *
 * Only this file imports the Node runtime bits (timers, process).
 */
import { createConnection, IPCMessageReader, IPCMessageWriter, ProposedFeatures } from 'vscode-languageserver/node';
import type { Connection } from 'vscode-languageserver/node';
import { startServer } from './server';
import type { RuntimeEnvironment } from './server';

const TRANSPORT_FLAGS = ['--stdio', '--node-ipc', '--socket', '--pipe'];
const args = process.argv.slice(2);
const hasTransportFlag = args.some((a) => TRANSPORT_FLAGS.includes(a.split('=')[0]));

let connection: Connection;
if (hasTransportFlag) {
  connection = createConnection(ProposedFeatures.all);
} else if (typeof process.send === 'function') {
  connection = createConnection(ProposedFeatures.all, new IPCMessageReader(process), new IPCMessageWriter(process));
} else {
  process.stderr.write('Usage: node dist/server.js --stdio | --node-ipc | --socket=PORT | --pipe=NAME\n');
  process.exit(2);
}

// A bug must not take the server down with it: log through the connection and keep serving.
process.on('uncaughtException', (e) => connection.console.error(`Uncaught exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
process.on('unhandledRejection', (e) => connection.console.error(`Unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));

/** Optional numeric flag `--name=value` (ms); undefined when absent or not a positive number. */
function numberFlag(name: string): number | undefined {
  const arg = args.find((a) => a.startsWith(`${name}=`));
  const value = arg ? Number(arg.slice(name.length + 1)) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

const runtime: RuntimeEnvironment = {
  timer: {
    setImmediate(callback) {
      const handle = setImmediate(callback);
      return { dispose: () => clearImmediate(handle) };
    },
    setTimeout(callback, ms) {
      const handle = setTimeout(callback, ms);
      return { dispose: () => clearTimeout(handle) };
    },
  },
  // For other editors and tests: `--validation-delay=MS` (push debounce), `--request-timeout=MS` (budget of tsq/* requests).
  validationDelay: numberFlag('--validation-delay'),
  requestTimeout: numberFlag('--request-timeout'),
};

startServer(connection, runtime);
