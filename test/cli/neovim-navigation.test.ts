// Navigation in Neovim's built-in LSP client through `tsq lsp` (no connection: the workspace alone):
// `nvim --headless` opens a.tsq of a project that also holds b.tsq and a worksheet TML; go to definition
// on a column lands on its name in the worksheet TML, and a rename applied by Neovim
// (vim.lsp.util.apply_workspace_edit, then :wall) changes the column in both .tsq files and the TML.
// Skipped with a reason when nvim is missing, unless TSQ_E2E_REQUIRED=1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CLI_JS } from './cli-support';

function findNvim(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const nvim = findNvim();
const skip = !nvim && process.env.TSQ_E2E_REQUIRED !== '1' ? 'nvim is not installed (apt-get install neovim, or scripts/install-e2e-tools.sh)' : false;

const A = "@datasource 'Flights'\n[origin] [delay]\n";
const B = "@datasource 'Flights'\ntop 5 [origin] ranked by sum [delay]\n\n@datasource 'Airports'\n[origin] [city]\n";
const WORKSHEET = "guid: null\nworksheet:\n  name: Flights\n  worksheet_columns:\n  - name: origin\n    column_id: flights::origin\n  - name: delay\n    column_id: flights::delay\n";

function initLua(cmd: string[]): string {
  return `vim.cmd('autocmd BufRead,BufNewFile *.tsq setfiletype tsq')
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'tsq',
  callback = function(args)
    local config = { name = 'tsq', cmd = { ${cmd.map((a) => JSON.stringify(a)).join(', ')} }, root_dir = vim.fn.getcwd() }
    if vim.lsp.start then vim.lsp.start(config) else vim.lsp.buf_attach_client(args.buf, vim.lsp.start_client(config)) end
  end,
})
`;
}

/** Waits for the server, asks for the definition of [origin] (line 1) and renames it to "departure airport"; writes what it saw. */
const DRIVER_LUA = `
local out = {}
vim.wait(60000, function()
  local c = vim.lsp.buf_get_clients(0)
  for _, client in pairs(c) do if client.initialized then return true end end
  return false
end, 100)
local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 1, character = 3 } }
local res = vim.lsp.buf_request_sync(0, 'textDocument/definition', params, 60000)
out.definition = {}
for _, r in pairs(res or {}) do for _, l in ipairs(r.result or {}) do table.insert(out.definition, l) end end
params.newName = 'departure airport'
local edits = vim.lsp.buf_request_sync(0, 'textDocument/rename', params, 60000)
out.renamed = false
for _, r in pairs(edits or {}) do
  if r.result then vim.lsp.util.apply_workspace_edit(r.result, 'utf-16'); out.renamed = true end
  if r.err then out.error = r.err.message end
end
vim.cmd('silent! wall')
vim.fn.writefile({ vim.fn.json_encode(out) }, 'result.json')
vim.cmd('qa!')
`;

test('Neovim through `tsq lsp`: go to definition in the worksheet TML, a rename across two .tsq files and the TML', { skip }, async () => {
  const project = mkdtempSync(join(tmpdir(), 'tsq-nvim-nav-'));
  try {
    const home = join(project, '.home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(project, 'a.tsq'), A);
    writeFileSync(join(project, 'b.tsq'), B);
    writeFileSync(join(project, 'flights.worksheet.tml'), WORKSHEET);
    writeFileSync(join(home, 'init.lua'), initLua([process.execPath, CLI_JS, 'lsp']));
    writeFileSync(join(project, 'driver.lua'), DRIVER_LUA);
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.state'), XDG_DATA_HOME: join(home, '.data') };
    const child = spawn(nvim!, ['--headless', '-u', join(home, 'init.lua'), '-i', 'NONE', 'a.tsq', '-c', 'luafile driver.lua'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    await new Promise((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    let seen: { definition: { uri: string; range: { start: { line: number; character: number } } }[]; renamed: boolean; error?: string };
    try {
      seen = JSON.parse(readFileSync(join(project, 'result.json'), 'utf8')) as typeof seen;
    } catch {
      throw new Error(`nvim wrote no result: ${output}`);
    }
    const line = WORKSHEET.split('\n').findIndex((l) => l.endsWith('- name: origin'));
    assert.equal(seen.definition.length, 1, JSON.stringify(seen));
    assert.ok(seen.definition[0]!.uri.endsWith('/flights.worksheet.tml'), seen.definition[0]!.uri);
    assert.deepEqual(seen.definition[0]!.range.start, { line, character: '  - name: '.length });
    assert.ok(seen.renamed, JSON.stringify(seen));
    assert.equal(readFileSync(join(project, 'a.tsq'), 'utf8'), A.replace('[origin]', '[departure airport]'));
    // Airports' origin is another column: it stays
    assert.equal(readFileSync(join(project, 'b.tsq'), 'utf8'), B.replace('[origin]', '[departure airport]'));
    const ws = parse(readFileSync(join(project, 'flights.worksheet.tml'), 'utf8')) as { worksheet: { worksheet_columns: { name: string }[] } };
    assert.deepEqual(ws.worksheet.worksheet_columns.map((c) => c.name), ['departure airport', 'delay']);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
