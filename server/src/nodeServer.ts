/**
 * Runs the TSQ language server in a Node process (dist/server.js, and `tsq lsp` of the command line).
 * - Transports as `vscode-languageserver/node` reads them: `--stdio` (stdout carries LSP frames only;
 *   `console.*` goes to the connection), `--node-ipc` (VS Code), `--socket=N`, `--pipe=NAME`; a process
 *   forked with an IPC channel and no flag uses IPC.
 * - A connection (`--url U --user NAME [--load-url U] [--ca-file F] [--insecure]`, or `--connection NAME
 *   [--config FILE]`, common/src/connectionConfig.ts): the server then reads the catalog from the service
 *   when the editor does not answer (serviceCatalog.ts); the password from `TSQ_PASSWORD` or
 *   `passwordCommand`. A project's `tsq.json` connection gets none until `tsq trust` approves it.
 * - `--validation-delay=MS` (push debounce) and `--request-timeout=MS` (each tsq/* request's budget).
 * Only this file and main.ts import the Node runtime bits (timers, process).
 */
import { createConnection, IPCMessageReader, IPCMessageWriter, ProposedFeatures } from 'vscode-languageserver/node';
import type { Connection } from 'vscode-languageserver/node';
import { AnalyticsServiceClient } from '../../common/src/api';
import { redact } from '../../common/src/redaction';
import { parseArgs } from 'node:util';
import { approvalHint, requireApproval, resolveConnection, secretsInEnvironment, serviceClientOptions, UnapprovedConnectionError, type ConnectionFlags, type ResolvedConnection } from '../../common/src/connectionConfig';
import { startServer } from './server';
import type { RuntimeEnvironment } from './server';
import { ServiceCatalogProvider } from '../../common/src/catalog';
import { forTerminal } from '../../common/src/terminalText';
import { serviceRunner } from './serviceRun';
import { messageOf, keysOf } from '../../common/src/guards';

const TRANSPORT_FLAGS = ['--stdio', '--node-ipc', '--socket', '--pipe'];

/**
 * Reads the connection flags from arguments (`--name value` or `--name=value`, `node:util` parseArgs);
 * other arguments (the transport, an editor's own such as `--clientProcessId=N`) are left alone.
 */
export function connectionFlagsOf(args: readonly string[]): ConnectionFlags {
  const { values } = parseArgs({
    args: [...args],
    strict: false,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      user: { type: 'string' },
      'load-url': { type: 'string' },
      'ca-file': { type: 'string' },
      connection: { type: 'string' },
      config: { type: 'string' },
      insecure: { type: 'boolean' },
      org: { type: 'string' },
    },
  });
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const flags: ConnectionFlags = { url: s(values.url), user: s(values.user), loadUrl: s(values['load-url']), caFile: s(values['ca-file']), connection: s(values.connection), config: s(values.config), org: s(values.org) };
  if (values.insecure === true) flags.insecure = true;
  for (const k of keysOf(flags)) if (flags[k] === undefined) delete flags[k];
  return flags;
}

/**
 * Optional numeric flag `--name=value` or `--name value` (ms, `node:util` parseArgs); undefined when
 * absent or not a non-negative number.
 */
export function numberFlag(args: readonly string[], name: `--${string}`): number | undefined {
  const option = name.slice(2);
  const { values } = parseArgs({ args: [...args], strict: false, allowPositionals: true, options: { [option]: { type: 'string' } } });
  const raw = values[option];
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Starts the language server on the transport the arguments name and serves until the connection ends.
 * @param args the process's arguments after the script (`process.argv.slice(2)`).
 * @param options `allowDefaultConnection`: use the connection files' default connection when none is
 *   named (`tsq lsp`; false for dist/server.js, which VS Code starts with no connection).
 */
export function runNodeServer(args: readonly string[], options: { allowDefaultConnection?: boolean } = {}): void {
  const hasTransportFlag = args.some((a) => TRANSPORT_FLAGS.includes(a.split('=')[0]));
  let connection: Connection;
  if (hasTransportFlag) {
    connection = createConnection(ProposedFeatures.all);
  } else if (typeof process.send === 'function') {
    connection = createConnection(ProposedFeatures.all, new IPCMessageReader(process), new IPCMessageWriter(process));
  } else {
    process.stderr.write('Usage: node dist/server.js --stdio | --node-ipc | --socket=PORT | --pipe=NAME [--url URL --user NAME | --connection NAME]\n');
    process.exit(2);
  }

  // the service client of `tsq lsp`, once made; what it holds and the environment's secrets never reach the log
  let client: AnalyticsServiceClient | undefined;
  const environment = secretsInEnvironment(process.env);
  const clean = (message: string) => redact(message, [...environment, ...(client?.heldSecrets() ?? [])]);

  // A bug must not take the server down with it: log through the connection and keep serving.
  process.on('uncaughtException', (e) => connection.console.error(clean(`Uncaught exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)));
  process.on('unhandledRejection', (e) => connection.console.error(clean(`Unhandled rejection: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)));

  let resolved: ResolvedConnection | undefined;
  let startupWarning: string | undefined;
  try {
    resolved = resolveConnection(connectionFlagsOf(args), { allowDefault: options.allowDefaultConnection ?? false });
    // a warning and an error name files and connections: through the gate of every front end, on one line
    for (const w of resolved?.warnings ?? []) process.stderr.write(`${forTerminal(`tsq language server: warning: ${w}`)}\n`);
    if (resolved) requireApproval(resolved);
  } catch (e) {
    // stderr, not stdout: editors keep it in their LSP log
    process.stderr.write(`${forTerminal(`tsq language server: ${messageOf(e)} The catalog comes from the editor only.`)}\n`);
    if (e instanceof UnapprovedConnectionError) startupWarning = `TSQ: this folder's connection needs your approval before TSQ reads its catalog: ${approvalHint(e.file)}, then restart the language server. Until then only the syntax is checked.`;
    resolved = undefined;
  }
  const serviceCatalog = resolved
    ? new ServiceCatalogProvider(
        () => {
          client = new AnalyticsServiceClient(serviceClientOptions(resolved));
          return client;
        },
        // a service's error text may echo the login: redacted in each form (common/src/redaction.ts)
        { log: (m) => connection.console.warn(clean(m)) },
      )
    : undefined;
  connection.onShutdown(async () => {
    await client?.close();
  });

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
    validationDelay: numberFlag(args, '--validation-delay'),
    requestTimeout: numberFlag(args, '--request-timeout'),
    serviceCatalog,
    startupWarning,
    ...(serviceCatalog ? { runQuery: serviceRunner(serviceCatalog, () => client) } : {}),
  };
  startServer(connection, runtime);
  if (resolved) connection.console.log(`Catalog: from the editor, or from ${resolved.connection.url} as ${resolved.connection.username} when the editor does not answer tsq/* requests.`);
}
