// Neovim as a real LSP client of the TSQ language server: `nvim --headless` opens a .tsq file with the
// server configured as a user would (a small init.lua: a filetype and vim.lsp.start, or
// vim.lsp.start_client + buf_attach_client on Neovim 0.7, Debian's), and receives the unknown-column
// diagnostic and a column completion from the emulator's catalog. Neovim answers the server's tsq/*
// requests with MethodNotFound, so the catalog can only come from the service through the server.
// Skipped with a reason when nvim is missing, unless TSQ_E2E_REQUIRED=1 (CI installs it with
// scripts/install-e2e-tools.sh).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLive, type Live } from '../emulator/client-support';
import { CLI_JS, recordingServer } from './cli-support';

const SERVER_JS = join(__dirname, '..', '..', 'dist', 'server.js');

function findNvim(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const nvim = findNvim();
const required = process.env.TSQ_E2E_REQUIRED === '1';
const skip = !nvim && !required ? 'nvim is not installed (apt-get install neovim, or scripts/install-e2e-tools.sh)' : false;

/** The user's init.lua: the .tsq filetype and the language server started for it. */
function initLua(cmd: string[]): string {
  const list = cmd.map((a) => JSON.stringify(a)).join(', ');
  return `-- TSQ in Neovim's built-in LSP client (README.md, "Neovim")
vim.cmd('autocmd BufRead,BufNewFile *.tsq setfiletype tsq')
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'tsq',
  callback = function(args)
    local config = { name = 'tsq', cmd = { ${list} }, root_dir = vim.fn.getcwd() }
    if vim.lsp.start then
      vim.lsp.start(config)
    else -- Neovim 0.7
      vim.lsp.buf_attach_client(args.buf, vim.lsp.start_client(config))
    end
  end,
})
`;
}

/** What the test drives in the editor: waits for the diagnostic, asks for completion after "[de", writes what it saw as JSON. */
const DRIVER_LUA = `
local out = {}
out.diagnosed = vim.wait(60000, function()
  for _, d in ipairs(vim.diagnostic.get(0)) do if d.code == 'tsq.unknownColumn' then return true end end
  return false
end, 100)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = d.code, severity = d.severity })
end
local res = vim.lsp.buf_request_sync(0, 'textDocument/completion', { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 2, character = 3 } }, 60000)
out.completion = {}
for _, r in pairs(res or {}) do
  local items = r.result and (r.result.items or r.result) or {}
  for _, it in ipairs(items) do table.insert(out.completion, it.label) end
end
vim.fn.writefile({ vim.fn.json_encode(out) }, 'result.json')
vim.cmd('qa!')
`;

interface Seen {
  diagnosed: boolean;
  diagnostics: { lnum: number; col: number; message: string; code: string; severity: number }[];
  completion: string[];
}

describe('Neovim as an LSP client', { skip }, () => {
  let live: Live;
  let root: string;

  before(async () => {
    assert.ok(nvim, 'nvim is required (TSQ_E2E_REQUIRED=1) but not installed: run scripts/install-e2e-tools.sh');
    live = await startLive();
    root = mkdtempSync(join(tmpdir(), 'tsq-nvim-'));
  });

  after(async () => {
    await live?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** Opens bad.tsq in headless Neovim with the given server command; returns what the editor saw. */
  async function openInNeovim(name: string, cmd: string[], files: Record<string, string> = {}, opts: { approve?: boolean; wait?: boolean; credentials?: Record<string, string> } = {}): Promise<Seen> {
    const project = join(root, name);
    const home = join(project, '.home');
    mkdirSync(home, { recursive: true });
    for (const [f, text] of Object.entries(files)) writeFileSync(join(project, f), text);
    writeFileSync(join(project, 'bad.tsq'), "@datasource 'flights'\n[origin] [delayz];\n[de\n");
    writeFileSync(join(home, 'init.lua'), initLua(cmd));
    writeFileSync(join(project, 'driver.lua'), DRIVER_LUA);
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.state'), XDG_DATA_HOME: join(home, '.data'), ...(opts.credentials ?? { TSQ_PASSWORD: 'admin' }) };
    // the approval step of README's Neovim section: the person reviews the project's tsq.json and approves it
    if (opts.approve) execFileSync(process.execPath, [CLI_JS, 'trust'], { cwd: project, env, stdio: 'ignore' });
    const child = spawn(nvim!, ['--headless', '-u', join(home, 'init.lua'), '-i', 'NONE', 'bad.tsq', '-c', 'luafile driver.lua'], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    let seen: Seen;
    try {
      seen = JSON.parse(readFileSync(join(project, 'result.json'), 'utf8')) as Seen;
    } catch {
      let log = '';
      try {
        log = readFileSync(join(home, '.cache', 'nvim', 'lsp.log'), 'utf8');
      } catch {
        // no log
      }
      throw new Error(`nvim wrote no result (exit ${String(code)}): ${output}\n${log}`);
    }
    return seen;
  }

  function assertCatalogSeen(seen: Seen): void {
    assert.ok(seen.diagnosed, `no tsq.unknownColumn diagnostic: ${JSON.stringify(seen.diagnostics)}`);
    const unknown = seen.diagnostics.find((d) => d.code === 'tsq.unknownColumn')!;
    assert.equal(unknown.lnum, 1);
    assert.equal(unknown.col, 10);
    assert.equal(unknown.severity, 1);
    assert.equal(unknown.message, 'Unknown column [delayz] in "flights". Did you mean [delay]?');
    for (const column of ['delay', 'destination', 'origin', 'distance', 'date']) assert.ok(seen.completion.includes(column), `completion lacks ${column}: ${seen.completion.join(', ')}`);
  }

  test('`tsq lsp` with the connection of tsq.json: the unknown-column diagnostic and column completion', async () => {
    const seen = await openInNeovim('tsq-lsp', [process.execPath, CLI_JS, 'lsp'], {
      'tsq.json': JSON.stringify({ connections: [{ name: 'emulator', url: live.emu.url, username: 'tsadmin' }] }),
    }, { approve: true });
    assertCatalogSeen(seen);
  });

  test('`server.js --stdio --url … --user …` does the same', async () => {
    const seen = await openInNeovim('server-js', [process.execPath, SERVER_JS, '--stdio', '--url', live.emu.url, '--user', 'tsadmin']);
    assertCatalogSeen(seen);
  });

  test('`tsq lsp` with TSQ_TOKEN alone against a service where REST API v1 is gone: the same diagnostic and completion over v2', async () => {
    const v2 = await startLive({ options: { publicApi: 'v2' } });
    try {
      const r = await fetch(`${v2.emu.url}/api/rest/2.0/auth/token/full`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'tsadmin', password: 'admin', validity_time_in_sec: 3600 }) });
      const { token } = (await r.json()) as { token: string };
      const seen = await openInNeovim('tsq-lsp-v2', [process.execPath, CLI_JS, 'lsp'], {
        'tsq.json': JSON.stringify({ connections: [{ name: 'cloud', url: v2.emu.url, username: 'tsadmin', apiVersion: 'v2' }] }),
      }, { approve: true, credentials: { TSQ_TOKEN: token } });
      assertCatalogSeen(seen);
    } finally {
      await v2.stop();
    }
  });
});

/**
 * README's Neovim configuration (root = the folder with tsq.json or .git, cmd_cwd = root, `tsq lsp` from
 * the PATH), written for Neovim 0.7 as README says (findfile/finddir for vim.fs.find, start_client and
 * buf_attach_client for vim.lsp.start), plus a handler that keeps window/showMessage for the test.
 */
const README_INIT_LUA = `_G.tsq_messages = {}
vim.lsp.handlers['window/showMessage'] = function(_, result) table.insert(_G.tsq_messages, result.message) end
vim.cmd('autocmd BufRead,BufNewFile *.tsq setfiletype tsq')
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'tsq',
  callback = function(args)
    local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ':p:h')
    local marker = vim.fn.findfile('tsq.json', dir .. ';')
    if marker == '' then marker = vim.fn.finddir('.git', dir .. ';') end
    local root = vim.fn.fnamemodify(marker, ':p:h')
    local config = { name = 'tsq', cmd = { 'tsq', 'lsp' }, root_dir = root, cmd_cwd = root }
    if vim.lsp.start then
      vim.lsp.start(config)
    else -- Neovim 0.7
      vim.lsp.buf_attach_client(args.buf, vim.lsp.start_client(config))
    end
  end,
})
`;

/** Waits for a showMessage (or 30 s), then a little longer for any request to go out; writes what it saw. */
const HOSTILE_DRIVER_LUA = `
local out = {}
vim.wait(30000, function() return #_G.tsq_messages > 0 end, 100)
vim.wait(2000, function() return false end, 100)
out.messages = _G.tsq_messages
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(out.diagnostics, { message = d.message, code = d.code }) end
vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.TSQ_TEST_RESULT)
vim.cmd('qa!')
`;

describe('Neovim opens a file of a hostile repository', { skip }, () => {
  test('with README\'s configuration: no request reaches the repository\'s server, its passwordCommand does not run, and the editor is told to approve', async () => {
    const attacker = await recordingServer();
    const root = mkdtempSync(join(tmpdir(), 'tsq-nvim-hostile-'));
    try {
      const home = join(root, 'home');
      const repo = join(home, 'src', 'cloned');
      const bin = join(root, 'bin');
      mkdirSync(join(repo, '.git'), { recursive: true });
      mkdirSync(join(repo, 'queries'), { recursive: true });
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, 'tsq'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_JS)} "$@"\n`, { mode: 0o755 });
      const marker = join(root, 'repo-command-ran');
      const command = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); process.stdout.write('x')`];
      writeFileSync(join(repo, 'tsq.json'), JSON.stringify({ connections: [{ name: 'team', url: attacker.url, username: 'tsadmin', passwordCommand: command }], default: 'team' }));
      writeFileSync(join(repo, 'queries', 'q.tsq'), "@datasource 'flights'\n[origin] [delay] top 3 sort\n");
      writeFileSync(join(home, 'init.lua'), README_INIT_LUA);
      writeFileSync(join(root, 'driver.lua'), HOSTILE_DRIVER_LUA);
      const result = join(root, 'result.json');
      const child = spawn(nvim!, ['--headless', '-u', join(home, 'init.lua'), '-i', 'NONE', join(repo, 'queries', 'q.tsq'), '-c', `luafile ${join(root, 'driver.lua')}`], {
        cwd: home,
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.state'), XDG_DATA_HOME: join(home, '.data'), TSQ_PASSWORD: 'the-users-password', TSQ_TEST_RESULT: result },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      await new Promise((resolve) => child.once('close', resolve));
      clearTimeout(timer);
      const seen = JSON.parse(readFileSync(result, 'utf8')) as { messages: string[] };
      assert.ok(seen.messages.some((m) => /this folder's connection needs your approval/.test(m) && /tsq trust/.test(m)), `messages: ${JSON.stringify(seen.messages)} ${output}`);
      assert.deepEqual(attacker.requests, [], 'the repository\'s server got a request');
      assert.equal(existsSync(marker), false, 'the repository\'s passwordCommand ran');
    } finally {
      await attacker.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
