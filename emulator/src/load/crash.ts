/**
 * Crash points for fault-injection tests (test/faults/, test/emulator/load-durability.test.ts): named step
 * boundaries of a load cycle where the emulator process can be made to die at once, as a `kill -9` there
 * would. Inert unless the environment variable `TSQ_EMULATOR_CRASH_AT` names a point, as `POINT` (the first
 * time the point is reached) or `POINT:N` (the N-th time), or `TSQ_EMULATOR_CRASH_FILE` names a file holding
 * `POINT` or `POINT:N` (read at every crash point, so a running emulator can be armed again; counting starts
 * over whenever the file's text changes; `<file>.fired` is written with the point just before the kill). Production runs set neither.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** The step boundaries, in the order a cycle meets them. */
export const CRASH_POINTS = [
  /** A chunk is in its final place, its cycle's metadata not yet saved. */
  'upload-stored',
  /** The chunk's cycle metadata is saved, the answer not yet sent. */
  'upload-recorded',
  /** CommitLoad set the cycle COMMITTING and saved it, the answer not yet sent. */
  'commit-accepted',
  /** Every row and the cycle's outcome are inserted in the engine's transaction, COMMIT not yet run. */
  'rows-inserted',
  /** The engine committed the rows and the outcome; the cycle's status record (cycle.json) not yet written. */
  'engine-committed',
  /** The status record says DONE; the chunks not yet deleted. */
  'status-recorded',
  /** AbortLoad recorded the cancel; the chunks not yet deleted. */
  'cancel-recorded',
] as const;

/** One of `CRASH_POINTS`. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

const fixed = parse(process.env.TSQ_EMULATOR_CRASH_AT);
const file = process.env.TSQ_EMULATOR_CRASH_FILE;
let fileText = '';
let seen = 0;

function parse(value: string | undefined): { point: string; nth: number } | undefined {
  if (!value || !value.trim()) return undefined;
  const [point, n] = value.trim().split(':');
  return { point: point as string, nth: n === undefined ? 1 : Math.max(1, Number(n) || 1) };
}

/** The armed point: the environment's, else the crash file's (its count reset when its text changed). */
function armed(): { point: string; nth: number } | undefined {
  if (fixed || !file) return fixed;
  let t = '';
  try {
    t = readFileSync(file, 'utf8');
  } catch {
    // no file: nothing armed
  }
  if (t !== fileText) {
    fileText = t;
    seen = 0;
  }
  return parse(t);
}

/** Kills this process with SIGKILL when the armed point is `point` and this is the N-th time it is reached. */
export function crashPoint(point: CrashPoint): void {
  if (fixed === undefined && file === undefined) return;
  const a = armed();
  if (a === undefined || a.point !== point) return;
  if (++seen !== a.nth) return;
  if (file) writeFileSync(`${file}.fired`, point); // tells the harness which point killed the process
  process.kill(process.pid, 'SIGKILL');
}
