/**
 * `tsq status CYCLE_ID` and `tsq bad-records CYCLE_ID`: the status of a load cycle and its bad records
 * file, from the data-load API (docs/service-interface.md §4.1; the status's members in
 * docs/service-notes.md §4.3).
 */
import type { AnalyticsServiceClient, LoadStatus } from '../../common/src/api';
import { writeFileSafely } from '../../common/src/safeWrite';
import { ExitCode, type ExitCodeValue } from './exitCodes';
import { reportParsingErrors } from './load';
import { info, textTable, write } from './output';
import { terminalLines } from '../../common/src/terminalText';

/**
 * Says on stderr that `--org` (or a connection's Org) does not scope a load cycle: the data-load API
 * (`/ts_dataservice/v1`, Software clusters) knows no Orgs, so a cycle reads the same in every Org
 * (docs/service-notes.md §5.4). Nothing is said when no Org was named.
 */
export function noteCycleHasNoOrg(org: string | undefined): void {
  if (org !== undefined) info(`--org ${org} has no effect here: the data-load API has no Orgs; a load cycle is read by its id alone.`);
}

/**
 * Prints a cycle's status (a table, or its raw JSON with `json`).
 * @returns OK while in progress or when DONE with OK; LOAD_FAILED when its status code says otherwise.
 */
export async function runStatusCommand(client: AnalyticsServiceClient, cycleId: string, opts: { json?: boolean; signal: AbortSignal }): Promise<ExitCodeValue> {
  const status: LoadStatus = await client.loadStatus(cycleId, { signal: opts.signal });
  if (opts.json) {
    await write(process.stdout, `${JSON.stringify(status.raw, null, 2)}\n`);
  } else {
    const rows: [string, string][] = [
      ['cycle', status.cycleId],
      ['stage', status.internalStage ?? '(not given)'],
      ['status', status.status.code ?? 'in progress'],
      ...(status.status.message ? ([['message', status.status.message]] as [string, string][]) : []),
      ['rows written', status.rowsWritten.toLocaleString('en-US')],
      ['rows ignored', status.ignoredRowCount.toLocaleString('en-US')],
    ];
    await write(process.stdout, textTable(['FIELD', 'VALUE'], rows));
    if (status.ignoredRowCount) {
      reportParsingErrors(status.parsingErrors);
      info(`The ignored rows: tsq bad-records ${status.cycleId}`);
    }
  }
  return status.status.code && status.status.code !== 'OK' ? ExitCode.LOAD_FAILED : ExitCode.OK;
}

/** Writes a cycle's bad records file to stdout or `out` (whole, never through a link: common/src/safeWrite.ts). */
export async function runBadRecordsCommand(client: AnalyticsServiceClient, cycleId: string, opts: { out?: string; signal: AbortSignal }): Promise<void> {
  // a cycle that ignored no rows has no bad records file (the service answers "Node does not exist")
  const status = await client.loadStatus(cycleId, { signal: opts.signal });
  if (status.ignoredRowCount === 0) {
    info(`cycle ${cycleId} ignored no rows: it has no bad records.`);
    return;
  }
  const text = await client.badRecords(cycleId, { signal: opts.signal });
  if (opts.out) {
    await writeFileSafely(opts.out, text);
    info(`wrote the bad records of cycle ${cycleId} to ${opts.out}`);
  } else {
    // the file as it is into a pipe; on a terminal its lines are shown with control characters escaped
    const shown = process.stdout.isTTY ? terminalLines(text) : text;
    await write(process.stdout, shown.endsWith('\n') || shown === '' ? shown : `${shown}\n`);
  }
}
