/**
 * What depends on one column on the service, once for every front end (`tsq impact`, the extension's
 * Uses view): `listDependents` of the column's GUID (LOGICAL_COLUMN) when the service lists the column
 * with one, else of its whole data source; and the words for a dependent's v1 type.
 */
import type { DataSource } from '../model';
import type { CallOptions, DependencyOf, Dependents } from '../api';
import type { ServiceCatalog } from './serviceCatalog';

/** What a dependent's v1 type is called where a person reads it (https://developers.thoughtspot.com/docs/dependent-objects-api). */
export const DEPENDENT_TYPE_LABELS: Readonly<Record<string, string>> = { LOGICAL_TABLE: 'worksheet or model', QUESTION_ANSWER_BOOK: 'answer', PINBOARD_ANSWER_BOOK: 'liveboard' };

/** The service's dependents of a column: of the column when the service has it, else of its data source (`of`), and that data source. */
export interface ColumnDependents extends Dependents {
  of: 'column' | 'dataSource';
  dataSource: DataSource;
}

/** The one call `columnDependents` makes (`AnalyticsServiceClient.listDependents`). */
export interface DependentsSource {
  listDependents(id: string, opts?: CallOptions, of?: DependencyOf): Promise<Dependents>;
}

/**
 * The dependents of the column named `column` (any case) of the data source `dataSource` (a name or GUID,
 * as `ServiceCatalog.resolve` reads one), or of that data source when the service lists no such column with
 * a GUID. Null when the service has no such data source (or this user may not see it).
 * @throws ServiceError as every call
 */
export async function columnDependents(catalog: ServiceCatalog, service: DependentsSource, dataSource: string, column: string): Promise<ColumnDependents | null> {
  const ds = await catalog.resolve(dataSource);
  if (!ds) return null;
  const wanted = column.trim().toLowerCase();
  const col = (await catalog.columns(ds.id))?.columns.find((c) => c.name.trim().toLowerCase() === wanted && c.id);
  if (col?.id) return { ...(await service.listDependents(col.id, {}, 'LOGICAL_COLUMN')), of: 'column', dataSource: ds };
  return { ...(await service.listDependents(ds.id)), of: 'dataSource', dataSource: ds };
}
