/**
 * Progress of the long commands of tsq (`tsq load`, `tsq tml export`, `tsq tml validate`), in one place:
 * a cli-progress bar on stderr when stderr is a terminal, plain lines on stderr otherwise (a pipe, a log
 * file, `--no-progress`, or the `CI` variable that CI services set). Never anything on stdout: a
 * command's answer there (file names, JSON, SARIF) stays exact.
 */
import { SingleBar } from 'cli-progress';
import { terminalSafe, type TerminalText } from '../../common/src/terminalText';
import { info, personLine } from './output';

/** How progress is shown: a redrawn bar, or plain lines. */
export type ProgressMode = 'bar' | 'lines';

/**
 * The mode for this run: `bar` when `stream` is a terminal, progress was not switched off
 * (`--no-progress` sets `progress: false` through commander) and `CI` is unset, empty, `0` or `false`
 * (GitHub Actions, GitLab CI and most others set `CI=true`; their logs are no terminal to redraw a bar
 * in, even under a pseudo-terminal).
 */
export function progressMode(opts: { progress?: boolean }, stream: { isTTY?: boolean } = process.stderr, env: NodeJS.ProcessEnv = process.env): ProgressMode {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false';
  return opts.progress !== false && stream.isTTY === true && !ci ? 'bar' : 'lines';
}

/** One state of a run's progress. */
export interface ProgressState {
  /** Done so far, in the unit of `total` (bytes, objects…). */
  value: number;
  /** All there is to do, in the same unit (at least 1 on the bar). */
  total: number;
  /** The values of the bar format's own `{tokens}` (strings as shown; each made terminal-safe, so a name from a file or the service may go here). */
  payload: Record<string, string>;
  /** The plain line for this state; without it nothing is printed in `lines` mode (a command prints a line per phase or per batch, not per update). */
  line?: TerminalText | string;
}

/** Shows a run's progress (see `progressReporter`). */
export interface ProgressReporter {
  readonly mode: ProgressMode;
  /** Moves the bar to `state` (it appears on the first update), or prints `state.line` in `lines` mode. */
  update(state: ProgressState): void;
  /**
   * A message on a line of its own above the bar, which is drawn again below it; a plain line in `lines`
   * mode. Through `personLine` (cli/src/output.ts): a plain string is escaped whole, the secrets in use removed.
   */
  log(message: TerminalText | string): void;
  /** Ends the bar (drawn once more, then a line break); the next output starts on a line of its own. Idempotent. */
  stop(): void;
}

/**
 * A progress reporter on stderr. `format` is the bar's cli-progress format (constant text: names go in
 * the payload): `{bar}`, `{percentage}`, `{value}`, `{total}`, `{eta_formatted}` and the `payload` keys
 * of each update. In `lines` mode each update's `line` goes to stderr through `info` (made terminal-safe).
 */
export function progressReporter(mode: ProgressMode, format: string): ProgressReporter {
  if (mode === 'lines') {
    return {
      mode,
      update: (s) => {
        if (s.line !== undefined) info(s.line);
      },
      log: (message) => info(message),
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({ stream: process.stderr, format, hideCursor: true, clearOnComplete: false, barsize: 30, etaBuffer: 20, forceRedraw: true });
  let started = false;
  let stopped = false;
  return {
    mode,
    update: (s) => {
      if (stopped) return;
      const payload = Object.fromEntries(Object.entries(s.payload).map(([k, v]) => [k, terminalSafe(v)]));
      if (!started) {
        started = true;
        bar.start(Math.max(1, s.total), s.value, payload);
      } else {
        bar.setTotal(Math.max(1, s.total));
        bar.update(s.value, payload);
      }
    },
    log: (message) => {
      // erase the bar's line (tsq's own control sequence), write the message; the bar's next redraw (forceRedraw) is on the line below
      // eslint-disable-next-line no-restricted-syntax
      process.stderr.write(started && !stopped ? `\r\x1b[2K${personLine(message)}\n` : `${personLine(message)}\n`);
    },
    stop: () => {
      if (started && !stopped) bar.stop();
      stopped = true;
    },
  };
}

/**
 * The reporter of a command's `progress` option: a mode makes one on stderr (`progressReporter`), a
 * reporter is used as it is (a benchmark records the updates), none is plain lines.
 */
export function reporterOf(progress: ProgressMode | ProgressReporter | undefined, format: string): ProgressReporter {
  return typeof progress === 'object' ? progress : progressReporter(progress ?? 'lines', format);
}

/** A rate for a person: `1,234` (whole units) or `12.3` (below 100) per second, from `count` in `ms`. */
export function perSecond(count: number, ms: number): string {
  const rate = ms > 0 ? (count * 1000) / ms : 0;
  return rate >= 100 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1);
}
