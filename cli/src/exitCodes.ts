/**
 * The exit codes of `tsq`, one per kind of outcome, so that a script can tell them apart. `tsq --help`
 * lists them (`EXIT_CODE_HELP`).
 */
import { AuthenticationError, ConnectionError, PermissionError, ServiceError } from '../../common/src/api';
import { ConnectionConfigError, MissingPasswordError, UnapprovedConnectionError } from '../../common/src/connectionConfig';
import { LoadError } from '../../common/src/load/pipeline';

export const ExitCode = {
  /** Success. */
  OK: 0,
  /** `tsq check` found at least one error in the files. */
  CHECK_ERRORS: 1,
  /** `tsq impact` found a use of the column, or (with a connection) an object on the service that depends on its data source (the same code as a failed check: a CI gate). */
  IMPACT_FOUND: 1,
  /** Wrong usage: an unknown command or option, a missing argument, a file that cannot be read, no connection given. */
  USAGE: 2,
  /** The service could not verify the user (401), the user lacks the privilege (403), there is no password, or the project's connection is not approved (`tsq trust`). */
  AUTH: 3,
  /** The service refused the query or request: an invalid query, an unknown data source, table or cycle. */
  REFUSED: 4,
  /** The load failed or was refused; the message says whether the table changed. */
  LOAD_FAILED: 5,
  /** The load failed because more rows were ignored than `--max-ignored` (`max_ignored_rows`) allows. */
  BAD_RECORDS: 6,
  /** The service could not be reached (connection refused, reset, TLS, time-out). */
  NETWORK: 7,
  /** Something unexpected (a bug in tsq): the message says what. */
  INTERNAL: 8,
  /** Interrupted with Ctrl-C (SIGINT); a load in progress was aborted. */
  INTERRUPTED: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code table shown by `tsq --help`. */
export const EXIT_CODE_HELP = `
Exit codes:
  0    success
  1    tsq check found errors; tsq impact found uses of the column
  2    usage error (unknown option, missing argument, unreadable file, no connection)
  3    authentication: wrong user or password, missing privilege, no password available,
       or a project's connection you have not approved (tsq trust)
  4    the service refused the query or request (invalid query, unknown data source, table or cycle)
  5    the load failed; the message says whether the table changed
  6    the load failed: more bad records than --max-ignored allows
  7    network: the service could not be reached
  8    unexpected error in tsq
  130  interrupted (Ctrl-C); a load before its commit is aborted and the table unchanged`;

/** A usage error found by tsq itself (a file that cannot be read, conflicting options…). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The service refused something, or something asked for does not exist (no such data source…). */
export class RefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedError';
  }
}

/** A failure that already chose its exit code (a load whose message was printed, …). */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly code: ExitCodeValue,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/**
 * The exit code of a failure. `maxIgnored` is the load's `max_ignored_rows`, to tell a load that failed
 * on too many bad records from other failed loads.
 */
export function exitCodeOf(e: unknown, maxIgnored?: number): ExitCodeValue {
  if (e instanceof ExitError) return e.code;
  if (e instanceof UsageError || e instanceof ConnectionConfigError) return ExitCode.USAGE;
  if (e instanceof MissingPasswordError || e instanceof UnapprovedConnectionError) return ExitCode.AUTH;
  if (e instanceof RefusedError) return ExitCode.REFUSED;
  if (e instanceof LoadError) {
    switch (e.kind) {
      case 'cancelled':
        return ExitCode.INTERRUPTED;
      case 'authentication':
      case 'permission':
        return ExitCode.AUTH;
      case 'connection':
        return ExitCode.NETWORK;
      case 'failed':
        return e.status && e.status.ignoredRowCount > (maxIgnored ?? 0) ? ExitCode.BAD_RECORDS : ExitCode.LOAD_FAILED;
      default:
        return ExitCode.LOAD_FAILED;
    }
  }
  if (e instanceof AuthenticationError || e instanceof PermissionError) return ExitCode.AUTH;
  if (e instanceof ConnectionError) return e.aborted ? ExitCode.INTERRUPTED : ExitCode.NETWORK;
  if (e instanceof ServiceError) return ExitCode.REFUSED;
  return ExitCode.INTERNAL;
}
