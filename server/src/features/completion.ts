/**
 * Completion (`textDocument/completion`) and its resolve (`completionItem/resolve`). Column and keyword
 * items come without documentation (1,000 columns would send ~300 KB per list): the client asks for it
 * when an item is selected.
 */
import type { CompletionList } from 'vscode-languageserver';
import type { FeatureContext } from './context';

/** Registers the completion handlers. */
export function registerCompletion(ctx: FeatureContext): void {
  ctx.connection.onCompletion((params, token) =>
    ctx.runSafeAsync(
      async () => {
        const document = ctx.documents.get(params.textDocument.uri);
        if (!document) return { isIncomplete: false, items: [] };
        const list = await ctx.service.doComplete(document, params.position, await ctx.settings.get(document.uri), token);
        return ctx.client.editRangeDefaultSupport ? withDefaultEditRange(list) : list;
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
 * Moves the replace range most items share into the list's `itemDefaults.editRange` (LSP 3.17): those
 * items then carry only `textEditText`, not a range each (a 1,000-column list is ~90 KB smaller). Items
 * with another range (a multi-word keyword typed in part) keep their `textEdit`. For clients that declare
 * `completionList.itemDefaults` with `editRange` only. Answers a new list; the items given are not changed.
 */
export function withDefaultEditRange(list: CompletionList): CompletionList {
  const first = list.items.find((i) => i.textEdit && 'range' in i.textEdit)?.textEdit;
  if (!first || !('range' in first)) return list;
  const r = first.range;
  const same = (x: typeof r) => x.start.line === r.start.line && x.start.character === r.start.character && x.end.line === r.end.line && x.end.character === r.end.character;
  const items = list.items.map((item) => {
    const edit = item.textEdit;
    if (!edit || !('range' in edit) || !same(edit.range)) return item;
    const { textEdit: _omitted, ...rest } = item;
    return { ...rest, textEditText: edit.newText };
  });
  return { ...list, itemDefaults: { ...list.itemDefaults, editRange: r }, items };
}

