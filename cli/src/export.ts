/**
 * `tsq export`: an answer's, or one liveboard visualization's, report as CSV through REST API v2
 * `report/answer` / `report/liveboard` (the operation `exportReport` of common/src/api/operations.ts;
 * v1 has no such call, so it goes to v2 on either generation). To stdout, or `--out` (written through
 * common/src/safeWrite.ts).
 */
import type { AnalyticsServiceClient, ReportTarget } from '../../common/src/api';
import { writeFileSafely } from '../../common/src/safeWrite';
import { terminalLines } from '../../common/src/terminalText';
import { info, write } from './output';

/** Options of `tsq export`. */
export interface ExportOptions {
  /** `--liveboard`: the object is a liveboard (else an answer). */
  liveboard: boolean;
  /** `--viz`: the liveboard's visualization (GUID or name); needed when it has several. */
  viz?: string;
  out?: string;
  signal: AbortSignal;
}

/** Exports the report of `object` (a GUID or name) and writes it. @throws ServiceError as the client does */
export async function runExportCommand(client: AnalyticsServiceClient, object: string, opts: ExportOptions): Promise<void> {
  const target: ReportTarget = opts.liveboard ? { kind: 'liveboard', id: object, ...(opts.viz ? { vizId: opts.viz } : {}) } : { kind: 'answer', id: object };
  const csv = await client.exportReport(target, { signal: opts.signal });
  if (opts.out) {
    await writeFileSafely(opts.out, csv);
    info(`wrote the report of ${object} to ${opts.out}`);
    return;
  }
  // the file as it is into a pipe; on a terminal its lines are shown with control characters escaped
  const shown = process.stdout.isTTY ? terminalLines(csv) : csv;
  await write(process.stdout, shown.endsWith('\n') || shown === '' ? shown : `${shown}\n`);
}
