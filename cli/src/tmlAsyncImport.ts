/**
 * `tsq tml import --async`: the files that pass the local checks go to the service as one import task
 * (REST API v2 `metadata/tml/async/import`, 10.4.0.cl or later), whose state is then polled
 * (`metadata/tml/async/status`) with progress on stderr until it is COMPLETED or FAILED. Ctrl-C stops the
 * polling at once and names the task, which goes on on the service. Outcomes print as `tsq tml import`'s.
 */
import { performance } from 'node:perf_hooks';
import { type AnalyticsServiceClient, type ImportedTmlObject, type TmlImportPolicy, type TmlImportTask } from '../../common/src/api';
import { sleep } from '../../common/src/api/session';
import { isTmlError } from '../../common/src/tml/tmlFiles';
import { terminalText } from '../../common/src/terminalText';
import { printDiagnostics } from './diagnosticFormats';
import { ExitCode, ExitError } from './exitCodes';
import { info, writeLine } from './output';
import { perSecond, reporterOf, type ProgressMode, type ProgressReporter } from './progress';
import { checkFiles } from './tml';
import { memberOf } from '../../common/src/guards';

/** The bar of an import task: objects the service has processed of all, the task, the rate. */
export const TASK_BAR = 'import [{bar}] {value}/{total} objects | task {task} | {rate}/s | {status}';

/** Options of `tsq tml import --async`. */
export interface TmlAsyncImportOptions {
  /** Ctrl-C: the polling stops at once (the task goes on on the service); exit 130 naming the task. */
  signal?: AbortSignal;
  progress?: ProgressMode | ProgressReporter;
  /** Milliseconds between two status calls; default 1,000. */
  pollMs?: number;
}

/** The list of a finished task's `import_response` (`{object: [{response}]}`, or the synchronous import's list itself), or its error. */
function responseOf(task: TmlImportTask): { objects: ImportedTmlObject[] } | { error: string } {
  const r = task.import_response;
  const object = memberOf(r, 'object');
  const error = memberOf(r, 'error');
  const list: unknown[] | undefined = Array.isArray(r) ? r : Array.isArray(object) ? object : undefined;
  if (task.task_status === 'FAILED' || !list) return { error: typeof error === 'string' ? error : `the task ${task.task_status === 'FAILED' ? 'failed' : 'answered no objects'}` };
  return { objects: list.map((o) => ((o as { response?: ImportedTmlObject }).response ?? o) as ImportedTmlObject) };
}

/**
 * Starts the import task and polls it to its end, saying each state on stderr (a bar on a terminal, a
 * line per change otherwise). Answers the finished task (with its `import_response`).
 * @throws ExitError (INTERRUPTED) when the signal aborts, naming the task; ServiceError from the service
 */
async function runTask(client: AnalyticsServiceClient, texts: string[], policy: TmlImportPolicy, opts: TmlAsyncImportOptions): Promise<TmlImportTask> {
  const task = await client.importTmlAsync(texts, policy, {}, { signal: opts.signal });
  const id = task.task_id!;
  const progress = reporterOf(opts.progress, TASK_BAR);
  progress.log(`tsq: import task ${id} started (${texts.length} file${texts.length === 1 ? '' : 's'}); polling metadata/tml/async/status`);
  const started = performance.now();
  let said = '';
  try {
    for (let state: TmlImportTask | undefined = task; ; ) {
      const done = state?.object_processed_count ?? 0;
      const total = state?.total_object_count ?? texts.length;
      const status = state?.task_status ?? 'IN_QUEUE';
      const line = `task ${id}: ${status}, ${done} of ${total} objects`;
      progress.update({ value: done, total, payload: { task: id, status, rate: perSecond(done, performance.now() - started) }, line: line === said ? undefined : line });
      said = line;
      if (state && (status === 'COMPLETED' || status === 'FAILED') && state.import_response !== undefined) return state;
      if (state !== task) await sleep(opts.pollMs ?? 1000, opts.signal);
      state = await client.importTaskStatus(id, { withResponse: true }, { signal: opts.signal });
      if (!state) throw new ExitError(`the service no longer lists the import task ${id}: its outcome is unknown`, ExitCode.CHECK_ERRORS);
    }
  } catch (e) {
    if (opts.signal?.aborted) throw new ExitError(`interrupted (Ctrl-C): stopped polling the import task ${id}; it goes on on the service (metadata/tml/async/status with task_ids ["${id}"] tells its outcome)`, ExitCode.INTERRUPTED);
    throw e;
  } finally {
    progress.stop();
  }
}

/**
 * `tsq tml import --async`: local checks as `tsq tml import`, then one import task of the files that
 * passed them (`all-or-none`: none when one failed), polled to its end. Prints `file: OK <guid>` or
 * `file: ERROR <message>` per file sent; returns the number of files not imported.
 * @throws ExitError (INTERRUPTED) on Ctrl-C while polling, naming the task; the errors of `checkFiles` and the service's
 */
export async function runTmlImportAsync(client: AnalyticsServiceClient, files: string[], policy: TmlImportPolicy, opts: TmlAsyncImportOptions = {}): Promise<number> {
  const checked = await checkFiles(client, files);
  const bad = checked.filter((f) => f.diagnostics.some(isTmlError));
  await printDiagnostics(bad.map((f) => ({ file: f.uri, diagnostics: f.diagnostics.filter(isTmlError) })), 'text');
  const toSend = policy === 'ALL_OR_NONE' && bad.length ? [] : checked.filter((f) => !bad.includes(f));
  if (toSend.length === 0) {
    info(`nothing imported: ${bad.length} file${bad.length === 1 ? '' : 's'} failed the checks`);
    return files.length;
  }
  const task = await runTask(client, toSend.map((f) => f.text), policy, opts);
  const answer = responseOf(task);
  let failed = files.length - toSend.length;
  for (const [k, f] of toSend.entries()) {
    const r = 'objects' in answer ? answer.objects[k] : undefined;
    const code = r?.status.status_code;
    if (code === 'OK' || code === 'WARNING') await writeLine(process.stdout, terminalText`${f.uri}: ${code} ${r?.header?.id_guid ?? ''}`);
    else {
      failed++;
      await writeLine(process.stdout, terminalText`${f.uri}: ERROR ${'error' in answer ? answer.error : (r?.status.error_message ?? 'no answer from the service')}`);
    }
  }
  info(`${files.length - failed} of ${files.length} imported (task ${task.task_id})`);
  return failed;
}
