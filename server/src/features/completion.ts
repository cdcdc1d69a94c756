/**
 * Completion (`textDocument/completion`) and its resolve (`completionItem/resolve`). Column and keyword
 * items come without documentation (1,000 columns would send ~300 KB per list): the client asks for it
 * when an item is selected. What many items share goes once into the list's `itemDefaults` when the
 * client takes them (`withItemDefaults`).
 */
import type { CompletionItem, CompletionList } from 'vscode-languageserver';
import type { FeatureContext } from './context';

/** Registers the completion handlers. */
export function registerCompletion(ctx: FeatureContext): void {
  ctx.connection.onCompletion((params, token) =>
    ctx.runSafeAsync(
      async () => {
        const document = ctx.documents.get(params.textDocument.uri);
        if (!document) return { isIncomplete: false, items: [] };
        const list = await ctx.service.doComplete(document, params.position, await ctx.settings.get(document.uri), token);
        return withItemDefaults(list, { editRange: ctx.client.editRangeDefaultSupport, data: ctx.client.dataDefaultSupport });
      },
      { isIncomplete: false, items: [] },
      `Completion in ${params.textDocument.uri}`,
      token,
    ),
  );

  ctx.connection.onCompletionResolve((item, token) =>
    ctx.runSafeAsync(() => ctx.service.doResolve(item, token), item, `Completion resolve of ${String(item.label)}`, token),
  );
}

/**
 * What items share, once in the list's `itemDefaults` (LSP 3.17 `CompletionList.itemDefaults`), for a
 * client that declared it takes them (`completionList.itemDefaults` in its capabilities):
 * - `editRange`: the replace range of the first item with one; items with that range keep only their
 *   text as `textEditText`, and not even that when it is their label (LSP 3.17 `textEditText`: "If not
 *   provided and a list's default range is provided the label property is used as a text"). Items with
 *   another range (a multi-word keyword typed in part) keep their `textEdit`.
 * - `data`: column items whose `data` names their own label's column (`{ column, dataSource }`, the
 *   language service's `CompletionItemData`) leave it out and the list carries `{ dataSource }` once;
 *   `doResolve` reads such an item's column from its label. Other items keep their own `data` (an item's
 *   `data` wins over the default).
 * With these, a 10,000-column list (COLUMN_LIST_LIMIT items) is 8.8 KB instead of 39 KB (test/bench/server.bench.ts).
 * Answers a new list when anything moved; the items given are not changed. Never throws.
 */
export function withItemDefaults(list: CompletionList, take: { editRange?: boolean; data?: boolean }): CompletionList {
  const firstEdit = take.editRange ? list.items.find((i) => i.textEdit && 'range' in i.textEdit)?.textEdit : undefined;
  const range = firstEdit && 'range' in firstEdit ? firstEdit.range : undefined;
  const dataSource = take.data ? sharedDataSource(list.items) : undefined;
  if (!range && dataSource === undefined) return list;
  const items: CompletionItem[] = new Array(list.items.length);
  for (let i = 0; i < items.length; i++) {
    const item = list.items[i]!;
    const edit = item.textEdit;
    const r = range && edit && 'range' in edit ? edit.range : undefined;
    const sameRange = !!r && r.start.line === range!.start.line && r.start.character === range!.start.character && r.end.line === range!.end.line && r.end.character === range!.end.character;
    const dropData = dataSource !== undefined && isOwnColumnData(item, dataSource);
    items[i] = sameRange || dropData ? copyWithout(item, sameRange ? edit!.newText : undefined, dropData) : item;
  }
  const itemDefaults = { ...list.itemDefaults, ...(range ? { editRange: range } : {}), ...(dataSource !== undefined ? { data: { dataSource } } : {}) };
  return { ...list, itemDefaults, items };
}

/** The data source of the first column item (`data` `{ column, dataSource }`), or undefined when there is none. */
function sharedDataSource(items: readonly CompletionItem[]): string | undefined {
  for (const item of items) {
    const data = item.data as { column?: unknown; dataSource?: unknown } | undefined;
    if (data && typeof data === 'object' && typeof data.column === 'string' && typeof data.dataSource === 'string') return data.dataSource;
  }
  return undefined;
}

/** Whether `item.data` is `{ column, dataSource }` of `dataSource` and the column is its label's (`name` or `[name]`). */
function isOwnColumnData(item: CompletionItem, dataSource: string): boolean {
  const data = item.data as { column?: unknown; dataSource?: unknown; keyword?: unknown } | undefined;
  if (!data || typeof data !== 'object' || data.dataSource !== dataSource || typeof data.column !== 'string' || data.keyword !== undefined) return false;
  return item.label === data.column || item.label === `[${data.column}]`;
}

/**
 * A copy of `item` without its `textEdit` when `text` is given (then `text` as `textEditText` unless it is
 * the label) and without its `data` when `dropData`: a loop over its keys (a rest spread per item was
 * most of the time of this step, measured).
 */
function copyWithout(item: CompletionItem, text: string | undefined, dropData: boolean): CompletionItem {
  const out: Record<string, unknown> = {};
  for (const key in item) {
    if ((key === 'textEdit' && text !== undefined) || (key === 'data' && dropData)) continue;
    out[key] = item[key as keyof CompletionItem];
  }
  if (text !== undefined && text !== item.label) out.textEditText = text;
  return out as unknown as CompletionItem;
}
