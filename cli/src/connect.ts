/**
 * The connection options every service command takes, and the client they make. Where a connection
 * and its password come from, and whether a credential may go to it, is common/src/connectionConfig.ts
 * and common/src/trust.ts (shared with the language server); here the command line adds the interactive
 * password prompt, on a terminal only, with the typed characters hidden (`read`).
 */
import type { Command } from 'commander';
import { read } from 'read';
import { AnalyticsServiceClient } from '../../common/src/api';
import { resolveConnection, secretsInEnvironment, serviceClientOptions, type ConnectionFile, type ConnectionFlags, type ConnectionSettings } from '../../common/src/connectionConfig';
import { UsageError } from './exitCodes';
import { flag, text, type OptionValue } from './optionValues';
import { redactLogOf, warn } from './output';
import { forTerminal } from '../../common/src/terminalText';

/** Adds the connection options to a command. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'base URL of the service, e.g. http://127.0.0.1:8088 (with --user)')
    .option('--user <name>', 'user name to log in with')
    .option('--load-url <url>', 'base URL of the data-load API when it differs from --url (a cluster: port 8442)')
    .option('--ca-file <file>', 'PEM file of extra certificate authorities')
    .option('--insecure', 'accept self-signed certificates (not recommended)')
    .option('-c, --connection <name>', 'a named connection from tsq.json or ~/.config/tsq/connections.json')
    .option('--config <file>', 'read connections from this file only')
    .option('--api-version <version>', 'public API generation: auto (default, asks the service once), v1 or v2')
    .option('--org <org>', 'the Org to run in, by id or name (default: the connection\'s "org", else your own; tsq orgs lists them)');
}

/** The connection flags (`withConnectionOptions`) of a command's parsed options (`readOptions`). */
export function connectionFlags(option: OptionValue): ConnectionFlags {
  const org = text(option('org'));
  return { url: text(option('url')), user: text(option('user')), loadUrl: text(option('loadUrl')), caFile: text(option('caFile')), insecure: flag(option('insecure')), connection: text(option('connection')), config: text(option('config')), apiVersion: text(option('apiVersion')), ...(org !== undefined ? { org } : {}) };
}

/** A connection ready to use: its settings, the files read, and a client whose password is asked once at the first login. */
export interface Connected {
  settings: ConnectionSettings;
  files: ConnectionFile[];
  client: AnalyticsServiceClient;
}

/** Asks for the password on the terminal without echoing it; only when stdin and stderr are terminals. */
async function promptPassword(question: string): Promise<string> {
  return String(await read({ prompt: forTerminal(question), silent: true, replace: '', input: process.stdin, output: process.stderr }));
}

/**
 * Resolves the connection of the options (or the files' default) and makes its client. Warnings of the
 * connection files (a project connection that shadows one of yours, a field a project may not set) go
 * to stderr. Nothing is sent before the trust check. From then on every line to stderr has the secrets in
 * use removed (`redactLogOf`): the environment's and what the client holds (`heldSecrets`).
 * @throws UsageError when no connection is given and there is no default; ConnectionConfigError for wrong
 *   options; UnapprovedConnectionError (exit 3) for a project connection not approved with `tsq trust`.
 */
export function connect(flags: ConnectionFlags): Connected {
  const resolved = resolveConnection(flags, { allowDefault: true });
  if (!resolved) {
    throw new UsageError('No connection: give --url and --user, or --connection NAME with a tsq.json (or ~/.config/tsq/connections.json) that defines it. The password comes from TSQ_PASSWORD or a prompt; a token from TSQ_TOKEN.');
  }
  for (const w of resolved.warnings) warn(w);
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const client = new AnalyticsServiceClient(serviceClientOptions(resolved, { prompt: interactive ? promptPassword : undefined }));
  const environment = secretsInEnvironment(process.env);
  redactLogOf(() => [...environment, ...client.heldSecrets()]);
  return { settings: resolved.connection, files: resolved.files, client };
}

/** The `defaultDataSource` and disabled diagnostics of the connection files (the first file that sets them). */
export function fileSettings(files: readonly ConnectionFile[]): { defaultDataSource?: string; disabledDiagnostics?: string[] } {
  return {
    defaultDataSource: files.find((f) => f.defaultDataSource)?.defaultDataSource,
    disabledDiagnostics: files.find((f) => f.disabledDiagnostics)?.disabledDiagnostics,
  };
}
