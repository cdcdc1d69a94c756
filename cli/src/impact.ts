/**
 * `tsq impact COLUMN --data-source NAME [--dir FOLDER…] [--format text|json|github]`: every use of a
 * column of a data source in the `.tsq`, Answer and Liveboard TML files under the folders (the workspace
 * index of the language server, common/src/languageService/workspaceIndex.ts, read from disk by the same
 * bounded walk, common/src/workspaceFiles.ts), for a CI gate before a model change: one line per use
 * (`file:line:col`, 1-based, columns in UTF-16 units as LSP counts them), a GitHub Actions warning per use,
 * or one JSON document. With a connection, also the service's dependents of the column, or of its data
 * source when the service lists no such column (worksheets, models, answers, liveboards: `listDependents`).
 * The caller exits 1 when anything uses the column.
 */
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkspaceIndex } from '../../common/src/languageService/workspaceIndex';
import { positionIn } from '../../common/src/languageService/workspaceIndex';
import { readWorkspaceFiles, workspaceFilesUnder } from '../../common/src/workspaceFiles';
import { terminalSafe, workflowCommand } from '../../common/src/terminalText';
import { info, warn, write } from './output';
import type { AnalyticsServiceClient } from '../../common/src/api';
import { columnDependents, DEPENDENT_TYPE_LABELS, type ColumnDependents } from '../../common/src/catalog/dependents';
import { ServiceCatalog } from '../../common/src/catalog/serviceCatalog';
import { RefusedError } from './exitCodes';

/** The output formats of `tsq impact`. */
export const IMPACT_FORMATS = ['text', 'json', 'github'] as const;
/** One of `IMPACT_FORMATS`. */
export type ImpactFormat = (typeof IMPACT_FORMATS)[number];

/** One use of the column: its file (relative to the working folder), 1-based line and column, and the kind of file. */
export interface ImpactUse {
  file: string;
  line: number;
  column: number;
  kind: string;
}

/**
 * The uses of `column` of `dataSource` in the files under `dirs` (declarations in worksheet/model/table
 * TML aside: they define the column, they do not depend on it), in file and position order.
 */
export async function findImpact(column: string, dataSource: string, dirs: readonly string[]): Promise<ImpactUse[]> {
  const paths: string[] = [];
  for (const d of dirs) await workspaceFilesUnder(d, paths);
  const index = new WorkspaceIndex();
  const byUri = new Map<string, string>();
  await readWorkspaceFiles(paths, (path, text) => {
    const uri = pathToFileURL(path).href;
    byUri.set(uri, path);
    index.set(uri, text);
  });
  const uses = index.references({ kind: 'column', column, dataSource }, false).map((r) => {
    const p = positionIn(r.file, r.use.start);
    return { file: relative(process.cwd(), byUri.get(r.file.uri)!) || byUri.get(r.file.uri)!, line: p.line + 1, column: p.character + 1, kind: r.file.kind };
  });
  return uses.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/** The service's dependents for `tsq impact` (`columnDependents`, common/src/catalog/dependents.ts). */
export type ServiceImpact = ColumnDependents;

/**
 * The service's dependents of the column `column` of the data source `dataSource` (name or GUID, resolved
 * as `tsq query` resolves one): `columnDependents`, of the column or of its data source (`of` says which).
 * @throws RefusedError when the service has no such data source; ServiceError as every call
 */
export async function serviceDependents(client: AnalyticsServiceClient, dataSource: string, column: string): Promise<ServiceImpact> {
  const found = await columnDependents(new ServiceCatalog(client, { holdOff: false }), client, dataSource, column);
  if (!found) throw new RefusedError(`there is no data source "${dataSource}" on the service (or this user may not see it). \`tsq objects\` lists them.`);
  return found;
}

/** What a dependent depends on, in what `tsq impact` prints. */
const dependedOn = (service: ServiceImpact, what: string, dataSource: string): string => (service.of === 'column' ? what : `the data source ${dataSource}`);

/**
 * Runs `tsq impact` and prints the uses in `format` on stdout, then the service's dependents of the column
 * (or of its data source, `serviceDependents`) when `client` is given, a summary on stderr; resolves to how
 * many uses and dependents there are.
 */
export async function runImpactCommand(column: string, dataSource: string, dirs: readonly string[], format: ImpactFormat, client?: AnalyticsServiceClient): Promise<number> {
  const uses = await findImpact(column, dataSource, dirs);
  const service = client ? await serviceDependents(client, dataSource, column) : undefined;
  const dependents = service?.objects ?? [];
  const what = `[${column}] of ${dataSource}`;
  if (format === 'json') await write(process.stdout, `${JSON.stringify({ column, dataSource, uses, ...(service ? { dependents, dependentsOf: service.of, complete: service.complete } : {}) }, null, 1)}\n`);
  else {
    for (const u of uses) {
      const line = format === 'github'
        ? workflowCommand('warning', { file: u.file, line: u.line, col: u.column, title: 'tsq impact' }, `uses ${what}`)
        : `${terminalSafe(u.file)}:${u.line}:${u.column}: ${terminalSafe(`uses ${what} (${u.kind})`)}`;
      await write(process.stdout, `${line}\n`);
    }
    for (const d of dependents) {
      const text = `${DEPENDENT_TYPE_LABELS[d.type] ?? d.type} "${d.name}" (${d.id}) depends on ${dependedOn(service!, what, dataSource)}`;
      await write(process.stdout, `${format === 'github' ? workflowCommand('warning', { title: 'tsq impact' }, `service: ${text}`) : `service: ${terminalSafe(text)}`}\n`);
    }
  }
  const files = new Set(uses.map((u) => u.file)).size;
  info(uses.length ? `${uses.length} use${uses.length === 1 ? '' : 's'} of ${what} in ${files} file${files === 1 ? '' : 's'}` : `nothing uses ${what}`);
  if (service?.of === 'dataSource') warn(`the service lists no column ${what}: these are the dependents of the whole data source`);
  if (service) info(`${dependents.length} object${dependents.length === 1 ? '' : 's'} on the service depend${dependents.length === 1 ? 's' : ''} on ${dependedOn(service, what, dataSource)}`);
  if (service && !service.complete) warn(`the service gave the first ${dependents.length} dependents only: there may be more`);
  return uses.length + dependents.length;
}
