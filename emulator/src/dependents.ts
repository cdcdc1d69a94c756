/**
 * What depends on a data source, shared by v1 `dependency/listdependents` and v2 `metadata/search`
 * with `include_dependent_objects`: the worksheets and models over it (its base table, or one of a
 * model's tables) under `LOGICAL_TABLE`, then the answers and liveboards with a visualization on it
 * under `QUESTION_ANSWER_BOOK` and `PINBOARD_ANSWER_BOOK` (the v1 types both generations key them by:
 * https://developers.thoughtspot.com/docs/dependent-objects-api), those the user may read only.
 */
import type { AnswerBook, LogicalTable, MetadataStore } from './metadataStore';
import type { EmulatorUser } from './context';

/**
 * The dependents of `t` by v1 type, each a header made by `header`, at most `limit` in all (-1: all);
 * `{}` when none.
 */
export function dependentsByType(t: LogicalTable, catalog: MetadataStore, user: EmulatorUser, limit: number, header: (o: LogicalTable | AnswerBook) => Record<string, unknown>): Record<string, Record<string, unknown>[]> {
  const byType: Record<string, Record<string, unknown>[]> = {};
  let left = limit < 0 ? Infinity : limit;
  const add = (type: string, o: LogicalTable | AnswerBook): void => {
    if (left <= 0) return;
    left--;
    (byType[type] ??= []).push(header(o));
  };
  for (const x of catalog.state.tables) {
    const over = x.id !== t.id && x.subtype === 'WORKSHEET' && (x.tableId === t.id || (x.model?.tables.some((m) => m.guid === t.id) ?? false));
    if (over && catalog.canRead(user, x)) add('LOGICAL_TABLE', x);
  }
  for (const bk of catalog.state.books) {
    if (bk.visualizations.some((v) => v.dataSource === t.id) && catalog.canRead(user, bk)) add(bk.type, bk);
  }
  return byType;
}
