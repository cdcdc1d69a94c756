// `tsq lsp` as an editor starts it: the built command line spawned with a clean environment in a home
// folder of the test's, an LSP connection over its stdin and stdout, its stderr kept. Not a test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { CLI_JS } from './cli-support';

/** A running `tsq lsp`: the connection (not yet listening), the child, what it wrote on stderr so far. */
export interface TsqLsp {
  connection: MessageConnection;
  child: ChildProcess;
  stderr: () => string;
  /** Sends `initialize` (rootUri the home folder) and `initialized`; call after `connection.listen()`. */
  initialize: () => Promise<void>;
  /** `shutdown`, `exit`, then the connection disposed and the child killed (also after a failure). */
  close: () => Promise<void>;
}

/**
 * Starts `tsq lsp ARGS` in `home` (HOME and XDG_CONFIG_HOME there, PATH and LANG from the test, plus `env`).
 * Register the notification handlers, then `connection.listen()`, then `initialize()`.
 */
export function startTsqLsp(args: string[], home: string, env: Record<string, string>): TsqLsp {
  const child = spawn(process.execPath, [CLI_JS, 'lsp', ...args], {
    cwd: home,
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  connection.onRequest(() => null);
  return {
    connection,
    child,
    stderr: () => stderr,
    initialize: async () => {
      await connection.sendRequest('initialize', { processId: process.pid, rootUri: `file://${home}`, capabilities: {} });
      await connection.sendNotification('initialized', {});
    },
    close: async () => {
      try {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
      } finally {
        connection.dispose();
        child.kill();
      }
    },
  };
}
