/**
 * Entry point of the TSQ language server (dist/server.js): `node dist/server.js --stdio` for any editor
 * (with `--url`/`--user` or `--connection` to read the catalog from the service when the editor does not
 * answer TSQ's catalog requests), `--node-ipc` as VS Code starts it. See nodeServer.ts for every flag.
 */
import { runNodeServer } from './nodeServer';

runNodeServer(process.argv.slice(2));
