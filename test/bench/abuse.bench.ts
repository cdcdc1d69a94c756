/**
 * The emulator under a hostile request (an adversarial listobjectheaders pattern must not hold up other
 * users): the time of `listobjectheaders?type=LOGICAL_COLUMN&pattern=%_%_…%_!` (400 pairs) as an
 * unprivileged user, of a searchdata sent at the same moment by another user, and of a searchdata alone
 * (medians of 5 rounds). Next to them, the backtracking regular expression the pattern used to become,
 * on one 40-character name, for growing numbers of `%_` pairs (it grows exponentially). The emulator
 * runs as its own process (`node dist/emulator.js --demo --port 0`). Run: `npm run bench -- abuse`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stableGuid } from '../../emulator/src/guid';
import { r2, startEmulatorProcess } from './setup';

const PREFIX = '/callosum/v1/tspublic/v1';
const FLIGHTS = stableGuid('table', 'demo', 'engine_default_schema', 'flights');

async function login(url: string, username: string, password: string): Promise<string> {
  const r = await fetch(`${url}${PREFIX}/session/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username, password }).toString() });
  // 200 or 204 (docs/service-notes.md §5.1: the service answers either; the emulator answers 204)
  if (!r.ok) throw new Error(`login ${username}: ${r.status}`);
  return r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

/** Milliseconds until the whole response of `fetch(url, init)` has arrived; throws on a status ≥ 400. */
async function timed(url: string, init: RequestInit): Promise<number> {
  const t = performance.now();
  const r = await fetch(url, init);
  await r.arrayBuffer();
  if (r.status >= 400) throw new Error(`${url}: ${r.status}`);
  return performance.now() - t;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The old matcher: the pattern as an anchored regular expression (backtracking). */
function oldRegexMs(pairs: number, name: string): number {
  const body = `${'%_'.repeat(pairs)}!`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  const re = new RegExp(`^${body}$`, 'is');
  const t = performance.now();
  re.test(name);
  return performance.now() - t;
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'tsq-bench-abuse-'));
  const { url, child } = await startEmulatorProcess(dir);
  try {
    const analyst = await login(url, 'analyst', 'analyst');
    const admin = await login(url, 'tsadmin', 'admin');
    const pattern = `${'%_'.repeat(400)}!`;
    const headersUrl = `${url}${PREFIX}/metadata/listobjectheaders?${new URLSearchParams({ type: 'LOGICAL_COLUMN', pattern })}`;
    const searchInit = (): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin },
      body: new URLSearchParams({ query_string: '[origin] [delay] top 10', data_source_guid: FLIGHTS }).toString(),
    });
    await timed(`${url}${PREFIX}/searchdata`, searchInit());
    const alone: number[] = [];
    const adversarial: number[] = [];
    const concurrent: number[] = [];
    for (let i = 0; i < 5; i++) {
      alone.push(await timed(`${url}${PREFIX}/searchdata`, searchInit()));
      const [a, s] = await Promise.all([timed(headersUrl, { headers: { cookie: analyst } }), timed(`${url}${PREFIX}/searchdata`, searchInit())]);
      adversarial.push(a);
      concurrent.push(s);
    }
    const name = 'a'.repeat(40);
    const oldRegex = [4, 5, 6].map((pairs) => ({ pairs, ms: r2(oldRegexMs(pairs, name)) }));
    return {
      patternPairs: 400,
      adversarialListObjectHeadersMs: r2(median(adversarial)),
      concurrentSearchDataMs: r2(median(concurrent)),
      searchDataAloneMs: r2(median(alone)),
      oldRegexOn40CharName: oldRegex,
    };
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
