// Builds every bundle of the project with one esbuild call per target.
//   dist/client.js   the extension (CommonJS, `vscode` external)
//   dist/server.js   the language server (IPC for VS Code, --stdio for other editors)
//   dist/emulator.js the local Analytics Service (DuckDB's native addon stays external)
//   dist/webview.js  the results panel's browser code (IIFE)
//   dist/cli.js      the `tsq` command line (package.json `bin`; a `#!/usr/bin/env node` script)
// Usage: node esbuild.mjs [--watch] [--production]
import * as esbuild from 'esbuild';
import { chmodSync, existsSync, readFileSync } from 'node:fs';

const version = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** @type {(import('esbuild').BuildOptions & { entryPoints: string[] })[]} */
const allTargets = [
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', platform: 'node', format: 'cjs', external: ['vscode'] },
  { entryPoints: ['server/src/main.ts'], outfile: 'dist/server.js', platform: 'node', format: 'cjs' },
  { entryPoints: ['emulator/src/main.ts'], outfile: 'dist/emulator.js', platform: 'node', format: 'cjs', external: ['@duckdb/node-api', '@duckdb/node-bindings', '@duckdb/node-bindings-*', 'vega-datasets'] },
  { entryPoints: ['client/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife' },
  { entryPoints: ['cli/src/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', banner: { js: '#!/usr/bin/env node' }, define: { TSQ_VERSION: JSON.stringify(version) } },
];
const targets = allTargets.filter((t) => existsSync(t.entryPoints[0]));

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
  legalComments: 'none',
};

if (watch) {
  for (const t of targets) {
    const ctx = await esbuild.context({ ...common, ...t, ...(t.platform === 'browser' ? { target: 'es2022' } : {}) });
    await ctx.watch();
  }
} else {
  await Promise.all(targets.map((t) => esbuild.build({ ...common, ...t, ...(t.platform === 'browser' ? { target: 'es2022' } : {}) })));
}
// the command line is run directly (package.json `bin`, `./dist/cli.js`): make it executable
if (existsSync('dist/cli.js')) chmodSync('dist/cli.js', 0o755);
