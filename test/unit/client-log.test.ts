// The `TSQ` log channel of the extension (client/src/log.ts `redactingLog`): whatever part of the client
// writes to it, the secrets in use are gone in each of their forms. The channel here records what reaches
// it, as VS Code's would show it; the extension's own channel is exercised end to end in test/e2e.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { redactingLog } from '../../client/src/log';

const SECRET = `Winter 2026! <ok>`;

/** A channel that records each call as `method: arguments`. */
function recordingChannel(): { channel: vscode.LogOutputChannel; lines: string[] } {
  const lines: string[] = [];
  const write = (method: string) => (...args: unknown[]) => lines.push(`${method}: ${args.map((a) => (a instanceof Error ? `${a.name}: ${a.message} | ${a.stack}` : String(a))).join(' ')}`);
  const channel = { name: 'TSQ', logLevel: 2, trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), append: write('append'), appendLine: write('appendLine'), replace: write('replace'), clear: () => lines.push('clear'), show: () => undefined, hide: () => undefined, dispose: () => undefined };
  return { channel: channel as unknown as vscode.LogOutputChannel, lines };
}

test('every text written to the TSQ channel has the secrets in use removed, in each form, once they are named', () => {
  const { channel, lines } = recordingChannel();
  const { log, redactWith } = redactingLog(channel);
  log.info('before: password=hunter22');
  redactWith(() => [SECRET]);
  const form = new URLSearchParams({ p: SECRET }).toString().slice(2);
  const html = SECRET.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const basic = Buffer.from(`tsadmin:${SECRET}`).toString('base64');
  log.warn(`login failed: ${form}`, `echo ${html}`, 42);
  log.error(new Error(`service said ${JSON.stringify({ pw: SECRET })} with Basic ${basic}`));
  log.appendLine(`raw ${SECRET}`);
  log.append(encodeURIComponent(SECRET));
  log.clear();
  assert.equal(log.name, 'TSQ');
  const all = lines.join('\n');
  for (const f of [SECRET, form, html, basic, encodeURIComponent(SECRET), JSON.stringify(SECRET), 'hunter22']) assert.ok(!all.includes(f), `${f} reached the channel:\n${all}`);
  assert.deepEqual(lines.map((l) => l.split(':')[0]), ['info', 'warn', 'error', 'appendLine', 'append', 'clear']);
  assert.match(all, /warn: login failed: \[redacted\] echo \[redacted\] 42/);
  assert.match(all, /error: Error: service said \{"pw":"\[redacted\]"\} with Basic \[redacted\]/);
});
