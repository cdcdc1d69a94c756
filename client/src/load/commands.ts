/**
 * Load CSV into Table: the commands, prompts, progress and results around `runLoad` (pipeline.ts).
 * Entry points: `tsq.loadCsv` (menus on .csv/.tsv/.txt, the palette), `tsq.loadCsvIntoTable` (a table
 * in the Objects view), `tsq.loadAgain` (reuses `<file>.load.json`), a file dropped on a table
 * (`LoadDropController`), `tsq.showBadRecords` and `tsq.checkLoadStatus` (a cycle's outcome by id).
 * The flow: the file → the target (a quick pick of tables, or `database.schema.table`; remembered per
 * file) → the sniffed definition as a summary with a preview, every field changeable, savable as
 * `<file>.load.json` → append, or replace after a confirmation → the cycle with progress and Cancel →
 * the result (rows written and ignored; Show Bad Records). Every step and the cycle id go to the TSQ log.
 */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import type { AnalyticsServiceClient, LoadDefinition } from '../../../common/src/api';
import type { ConnectionManager } from '../connections';
import type { TsqClient } from '../context';
import { errorMessage } from '../service';
import { loadChunkBytes } from '../settings';
import { formatSummary, guardLoad, parseTargetText, sameTarget, savedDefinitionPath, targetText, toSaved, type LoadTarget } from '../../../common/src/load/definition';
import { DEFAULT_CHUNK_BYTES, LoadError, loadPathOf, runLoad, type LoadPath, type LoadResult } from '../../../common/src/load/pipeline';
import { INPUT_TABLE_DIFFERENCES } from '../../../common/src/load/inputTable';
import { checkCycle } from '../../../common/src/load/status';
import { writeFileSafely } from '../../../common/src/safeWrite';
import { isSupportedEncoding, sniffCsv } from '../../../common/src/load/sniff';
import { fullFormat } from '../../../common/src/load/values';
import { changeField, reviewItems, tableChoiceOf, type Draft, type TableChoice } from './review';
import { commandRegistrar } from '../commands';
import { readSample, readSaved } from './files';
import { recordOr } from '../../../common/src/guards';

/** Bytes of the file read for sniffing and the preview. */
const CSV_EXT = /\.(csv|tsv|txt)$/i;

/** Registers the load commands; returns the drop controller for the Objects view. */
export function registerLoadCommands(client: TsqClient): LoadDropController {
  const context = client.extension;
  const loader = new CsvLoader(context, client.connections, client.log);
  const register = commandRegistrar(context.subscriptions);
  register('tsq.loadCsv', (arg?: unknown, more?: unknown) => loader.load(uriOf(arg, more)));
  register('tsq.loadCsvIntoTable', async (node?: unknown) => {
    const table = tableNodeOf(node);
    const picked = await vscode.window.showOpenDialog({ title: `TSQ: Load CSV into ${table?.name ?? 'Table'}`, canSelectMany: false, filters: { 'CSV files': ['csv', 'tsv', 'txt'], 'All files': ['*'] } });
    if (picked?.[0]) await loader.load(picked[0], table);
  });
  register('tsq.loadAgain', (arg?: unknown, more?: unknown) => loader.loadAgain(uriOf(arg, more)));
  register('tsq.showBadRecords', (cycleId?: unknown) => (typeof cycleId === 'string' ? loader.showBadRecords(cycleId) : undefined));
  register('tsq.checkLoadStatus', (cycleId?: unknown) => loader.checkStatus(typeof cycleId === 'string' && cycleId ? cycleId : undefined));
  return new LoadDropController(loader);
}

/** Drops of files from the explorer or the desktop onto a table of the Objects view start a load into it. */
export class LoadDropController implements vscode.TreeDragAndDropController<unknown> {
  readonly dropMimeTypes = ['text/uri-list', 'files'];
  readonly dragMimeTypes: string[] = [];
  constructor(private readonly loader: CsvLoader) {}

  async handleDrop(target: unknown, data: vscode.DataTransfer): Promise<void> {
    const table = tableNodeOf(target);
    if (!table) {
      void vscode.window.showWarningMessage('TSQ: drop a CSV file on a table (under Data Sources › Tables) to load it there.');
      return;
    }
    let uri: vscode.Uri | undefined;
    const list = await data.get('text/uri-list')?.asString();
    const first = list?.split(/\r?\n/).map((s) => s.trim()).find((s) => s && !s.startsWith('#'));
    if (first) uri = vscode.Uri.parse(first);
    if (!uri) {
      for (const [, item] of data) {
        const f = item.asFile();
        if (f?.uri) {
          uri = f.uri;
          break;
        }
      }
    }
    if (!uri) return;
    await this.loader.load(uri, table);
  }
}

/** The table a tree node stands for (a LOGICAL_TABLE object node of subtype ONE_TO_ONE_LOGICAL or USER_DEFINED). */
function tableNodeOf(node: unknown): { id: string; name: string } | undefined {
  const n = node as { kind?: string; type?: string; subtype?: string; header?: { id?: string; name?: string } } | undefined;
  if (!n || n.kind !== 'object' || n.type !== 'LOGICAL_TABLE' || !n.header?.id) return undefined;
  if (n.subtype && n.subtype !== 'ONE_TO_ONE_LOGICAL' && n.subtype !== 'USER_DEFINED') return undefined;
  return { id: n.header.id, name: n.header.name ?? n.header.id };
}

/** The file a command was run on: the explorer's selection, the editor's file, or undefined. */
function uriOf(arg: unknown, more: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (Array.isArray(more) && more[0] instanceof vscode.Uri) return more[0];
  if (typeof arg === 'string' && arg) return vscode.Uri.file(arg);
  const doc = vscode.window.activeTextEditor?.document;
  return doc && doc.uri.scheme === 'file' && CSV_EXT.test(doc.uri.fsPath) ? doc.uri : undefined;
}

class CsvLoader {
  /** The cycles of this window's loads by id, for Show Bad Records and Check Load Status. */
  private readonly cycles = new Map<string, { client: AnalyticsServiceClient; file: string; parsingErrors?: unknown }>();
  /** The last load whose outcome was unknown: offered by Check Load Status. */
  private lastUnknownCycle: string | undefined;
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly connections: ConnectionManager,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The whole interactive flow for one file (and a table when it came from the tree). */
  async load(uri: vscode.Uri | undefined, table?: { id: string; name: string }): Promise<LoadResult | undefined> {
    try {
      uri ??= (await vscode.window.showOpenDialog({ title: 'TSQ: Load CSV into Table', canSelectMany: false, filters: { 'CSV files': ['csv', 'tsv', 'txt'], 'All files': ['*'] } }))?.[0];
      if (!uri) return undefined;
      if (uri.scheme !== 'file') throw new Error(`${uri.toString()} is not a local file; TSQ loads files of this machine's file system.`);
      const file = uri.fsPath;
      const client = await this.connections.getClient();
      const saved = await readSaved(file);
      const choice = table ? await this.describeTable(client, table.id) : await this.pickTarget(client, file, saved?.definition.target);
      if (!choice) return undefined;
      this.log.info(`Load CSV: ${file} into ${targetText(choice.target)}`);
      const prepared = await this.prepare(file, choice, saved);
      if (!prepared) return undefined;
      return await this.execute(client, file, prepared.definition, prepared.encoding, prepared.replaceConfirmed, choice);
    } catch (e) {
      this.log.error(`Load CSV: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`TSQ: ${errorMessage(e)}`, 'Show Log').then((c) => c && this.log.show());
      return undefined;
    }
  }

  /** Load Again: the saved `<file>.load.json` without prompts (a replace is still confirmed); without one, the whole flow. */
  async loadAgain(uri: vscode.Uri | undefined): Promise<LoadResult | undefined> {
    if (uri && /\.load\.json$/i.test(uri.fsPath)) uri = vscode.Uri.file(uri.fsPath.replace(/\.load\.json$/i, ''));
    if (!uri) return this.load(undefined);
    const file = uri.fsPath;
    try {
      const saved = await readSaved(file);
      if (!saved) {
        void vscode.window.showInformationMessage(`TSQ: there is no saved load definition (${basename(savedDefinitionPath(file))}) next to ${basename(file)}; choose the table and format now.`);
        return this.load(uri);
      }
      // the definition guard: the table and whether it is emptied come from the normalised definition,
      // and a replace is confirmed by the person (the modal names the table it empties)
      const guarded = guardLoad(saved.definition, { replace: 'ask', source: `the saved definition ${basename(savedDefinitionPath(file))}`, confirm: 'confirm the replace' });
      if (guarded.empties && !(await this.confirmedReplace(guarded.definition, file))) return undefined;
      const client = await this.connections.getClient();
      this.log.info(`Load Again: ${file} with ${savedDefinitionPath(file)} into ${targetText(guarded.definition.target)}${guarded.empties ? ' (replace, confirmed)' : ''}`);
      return await this.execute(client, file, guarded.definition, saved.encoding, guarded.empties);
    } catch (e) {
      this.log.error(`Load Again: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`TSQ: ${errorMessage(e)}`, 'Show Log').then((c) => c && this.log.show());
      return undefined;
    }
  }

  /** The tables of the connection (ONE_TO_ONE_LOGICAL and USER_DEFINED) with their targets and columns. */
  private async listTables(client: AnalyticsServiceClient): Promise<TableChoice[]> {
    const headers = await client.listObjectHeaders({ type: 'LOGICAL_TABLE', subtypes: ['ONE_TO_ONE_LOGICAL', 'USER_DEFINED'], batchSize: -1, sort: 'NAME', sortAscending: true });
    if (!headers.length) return [];
    const details = await client.metadataDetails('LOGICAL_TABLE', headers.map((h) => h.id));
    return details.storables.map(tableChoiceOf).filter((t): t is TableChoice => !!t);
  }

  private async describeTable(client: AnalyticsServiceClient, id: string): Promise<TableChoice> {
    const details = await client.metadataDetails('LOGICAL_TABLE', [id]);
    const t = details.storables.map(tableChoiceOf).find(Boolean);
    if (!t) throw new Error(`the service gave no database, schema and table for the object ${id}; it cannot be a load target.`);
    return t;
  }

  /** The target quick pick: the tables (last target first), or a typed `database.schema.table`. */
  private async pickTarget(client: AnalyticsServiceClient, file: string, savedTarget?: LoadTarget): Promise<TableChoice | undefined> {
    // "last used" only for a table a load of this file really ran into from this workspace (execute records
    // it); a saved definition's table may never have been loaded into (written and cancelled, or from Git)
    const lastUsed = this.context.workspaceState.get<LoadTarget>(lastTargetKey(file));
    const last = lastUsed ?? savedTarget;
    type Item = vscode.QuickPickItem & { table?: TableChoice };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = `TSQ: Load ${basename(file)} into Table`;
    qp.placeholder = 'Choose the table, or type database.schema.table';
    qp.matchOnDescription = true;
    qp.busy = true;
    qp.ignoreFocusOut = true;
    qp.show();
    let tables: TableChoice[] = [];
    const same = sameTarget;
    const render = () => {
      const items: Item[] = tables.map((t) => ({
        label: t.name,
        description: targetText(t.target),
        detail: `${t.columns.length} columns: ${t.columns.map((c) => `${c.name} ${c.dataType}`).join(', ')}`.slice(0, 200),
        table: t,
      }));
      if (last) {
        const i = items.findIndex((it) => it.table && same(it.table.target, last));
        if (i > 0) items.unshift(...items.splice(i, 1));
        if (i >= 0) items[0].description = `${items[0].description} — ${lastUsed ? 'last used for this file' : `the table of ${basename(savedDefinitionPath(file))}`}`;
      }
      const typed = parseTargetText(qp.value);
      if (typed && !tables.some((t) => same(t.target, typed))) {
        items.unshift({ label: `$(edit) ${targetText(typed)}`, description: 'typed target (not in the list)', alwaysShow: true, table: { name: typed.table, target: typed, columns: [] } });
      }
      qp.items = items;
    };
    const picked = new Promise<TableChoice | undefined>((resolve) => {
      qp.onDidChangeValue(render);
      qp.onDidAccept(() => {
        const sel = qp.selectedItems[0]?.table;
        if (sel) {
          resolve(sel);
          qp.hide();
        }
      });
      qp.onDidHide(() => resolve(undefined));
    });
    try {
      tables = await this.listTables(client);
    } catch (e) {
      this.log.warn(`Load CSV: the tables could not be listed (${errorMessage(e)}); type database.schema.table`);
      qp.placeholder = `The tables could not be listed (${errorMessage(e)}): type database.schema.table`;
    }
    qp.busy = false;
    render();
    const choice = await picked;
    qp.dispose();
    if (choice && !choice.columns.length) {
      // a typed target: find its columns when the service lists it after all
      const known = tables.find((t) => same(t.target, choice.target));
      if (known) return known;
    }
    return choice;
  }

  /** Sniffs the file and lets the user review and change the load definition; undefined when cancelled. */
  private async prepare(file: string, table: TableChoice, saved: { definition: LoadDefinition; encoding: string } | undefined): Promise<{ definition: LoadDefinition; encoding: string; replaceConfirmed: boolean } | undefined> {
    const { sample, complete } = await readSample(file);
    const sniffed = sniffCsv(sample, { fileName: file, complete, targetColumns: table.columns });
    this.log.info(`Load CSV: sniffed ${basename(file)}: ${sniffed.notes.join('; ')}`);
    for (const w of sniffed.warnings) this.log.warn(`Load CSV: ${w}`);
    if (!isSupportedEncoding(sniffed.encoding)) throw new Error(`${basename(file)} is encoded as ${sniffed.encoding}; save it as UTF-8 to load it.`);
    const reuse = saved && sameTarget(saved.definition.target, table.target);
    const draft: Draft = {
      encoding: saved?.encoding ?? sniffed.encoding,
      format: reuse ? fullFormat(saved.definition.format) : sniffed.format,
      loadOptions: { empty_target: false, max_ignored_rows: 0, ...(reuse ? saved.definition.load_options : {}) },
    };
    const definition = (): LoadDefinition => ({ target: table.target, format: { ...draft.format }, load_options: { ...draft.loadOptions }, advanced_options: { max_reported_parsing_errors: 100 } });
    for (;;) {
      const pick = await vscode.window.showQuickPick(reviewItems(file, table, draft, sniffed, sample, complete), {
        title: `TSQ: Load ${basename(file)} — ${formatSummary(draft.format, draft.encoding)}`,
        placeHolder: 'Press Enter to load, or pick a field to change it',
        matchOnDescription: false,
        ignoreFocusOut: true,
      });
      if (!pick) return undefined;
      if (pick.action === 'load') {
        const guarded = guardLoad(definition(), { target: table.target, replace: 'ask', source: 'the load definition', confirm: 'confirm the replace' });
        if (guarded.empties && !(await this.confirmedReplace(guarded.definition, file, false))) continue;
        this.log.info(`Load CSV: ${formatSummary(draft.format, draft.encoding)}; ${guarded.empties ? 'replace' : 'append'}, max_ignored_rows ${draft.loadOptions.max_ignored_rows}`);
        return { definition: guarded.definition, encoding: draft.encoding, replaceConfirmed: guarded.empties };
      }
      if (pick.action === 'save') {
        const path = savedDefinitionPath(file);
        // beside the CSV, in a folder a repository may hold: never through a link planted there (common/src/safeWrite.ts)
        await writeFileSafely(path, `${JSON.stringify(toSaved(definition(), draft.encoding), null, 2)}\n`);
        this.log.info(`Load CSV: saved ${path}`);
        void vscode.window.showInformationMessage(`Saved the load definition as ${basename(path)}; Load Again reuses it.`);
        continue;
      }
      await changeField(pick.action, draft);
    }
  }

  /**
   * Runs the cycle with progress and Cancel, then reports the result. `definition` is one `guardLoad`
   * answered; a definition that empties the table, or any load into an input table (whose update replaces every row), runs only with `replaceConfirmed`, else it is asked again.
   */
  private async execute(client: AnalyticsServiceClient, file: string, definition: LoadDefinition, encoding: string, replaceConfirmed = false, choice?: TableChoice): Promise<LoadResult | undefined> {
    const table = targetText(definition.target);
    const via = await loadPathOf(client);
    if ((via === 'inputTable' || definition.load_options?.empty_target !== false) && !replaceConfirmed && !(await this.confirmedReplace(definition, file, true, via))) return undefined;
    const chunkBytes = loadChunkBytes(DEFAULT_CHUNK_BYTES);
    let cycleId: string | undefined;
    // from now on the file was loaded into this table ("last used for this file" in the next pick)
    await this.context.workspaceState.update(lastTargetKey(file), definition.target);
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Loading ${basename(file)} into ${table}`, cancellable: true },
        async (progress, token) => {
          const ctl = new AbortController();
          const sub = token.onCancellationRequested(() => {
            this.log.info(`Load CSV: Cancel pressed${cycleId ? ` (cycle ${cycleId})` : ''}`);
            ctl.abort(new Error('cancelled by the user'));
          });
          let shown = 0;
          try {
            return await runLoad(client, file, definition, {
              chunkBytes: Math.max(64 * 1024, chunkBytes),
              encoding,
              via,
              signal: ctl.signal,
              log: (l) => this.log.info(`Load CSV: ${l}`),
              onProgress: (p) => {
                cycleId = p.cycleId ?? cycleId;
                const fraction = p.bytesTotal ? (p.bytesSent / p.bytesTotal) * 100 : 0;
                const message =
                  p.phase === 'uploading'
                    ? `${mb(p.bytesSent)} of ${mb(p.bytesTotal)} · ${p.rows.toLocaleString('en-US')} rows · ${mb(p.bytesPerSecond)}/s`
                    : p.phase === 'committing'
                      ? `committing cycle ${p.cycleId} (Cancel no longer applies)…`
                      : p.phase === 'starting'
                        ? 'starting the load cycle…'
                        : 'done';
                progress.report({ message, increment: Math.max(0, fraction - shown) });
                shown = Math.max(shown, fraction);
              },
            });
          } finally {
            sub.dispose();
          }
        },
      );
      this.cycles.set(result.cycleId, { client, file, parsingErrors: result.status.parsingErrors });
      const bad = result.invalidUtf8;
      const encodingNote = bad ? ` ${bad.count} byte${bad.count === 1 ? ' was' : 's were'} not UTF-8 (first 0x${bad.firstByte.toString(16).toUpperCase()} at byte ${bad.firstOffset}): their records are among the bad records.` : '';
      const text = `Loaded ${result.rowsWritten.toLocaleString('en-US')} rows into ${table}${result.ignoredRows ? `; ${result.ignoredRows.toLocaleString('en-US')} rows were ignored` : ''} (${result.via === 'inputTable' ? 'input table' : 'cycle'} ${result.cycleId}).${encodingNote}`;
      this.log.info(`Load CSV: ${text}`);
      const actions = [...(result.ignoredRows ? ['Show Bad Records'] : []), 'Show Data', 'Show Log'];
      // the table's GUID when it was picked from the service's list; Load Again knows its name only
      const shown = { id: choice?.id, name: choice?.name ?? definition.target.table };
      void vscode.window.showInformationMessage(text, ...actions).then((c) => this.onAction(c, result.cycleId, shown));
      return result;
    } catch (e) {
      const err = e instanceof LoadError ? e : new LoadError('unknown', errorMessage(e), false, cycleId);
      if (err.cycleId) this.cycles.set(err.cycleId, { client, file, parsingErrors: err.status?.parsingErrors });
      this.log.error(`Load CSV: ${err.message}`);
      if (err.kind === 'unknown' && err.cycleId) this.lastUnknownCycle = err.cycleId;
      const actions = [...(err.status?.ignoredRowCount ? ['Show Bad Records'] : []), ...(err.kind === 'unknown' && err.cycleId ? ['Check Load Status'] : []), 'Show Log'];
      const show = err.kind === 'cancelled' ? vscode.window.showInformationMessage : vscode.window.showErrorMessage;
      void show(err.message, ...actions).then((c) => this.onAction(c, err.cycleId));
      return undefined;
    }
  }

  /** Asks before a replace (Load Again with a saved definition; the interactive flow when Load is picked). */
  private async confirmedReplace(definition: LoadDefinition, file: string, saved = true, via: LoadPath = 'dataLoad'): Promise<boolean> {
    const ok = await vscode.window.showWarningMessage(
      `Replace every row of ${targetText(definition.target)} with the rows of ${basename(file)}?`,
      { modal: true, detail: via === 'inputTable' ? `${definition.target.table} is an input table. ${INPUT_TABLE_DIFFERENCES}` : `${saved ? 'The saved load definition empties the table first' : 'The table is emptied first'} (empty_target). If the load fails or is cancelled, the table stays as it is.` },
      'Replace',
    );
    return ok === 'Replace';
  }

  /**
   * An action of a load's message. `table` (its GUID and name) is what Show Data previews: the rows of the
   * table just loaded, by TSQ: Preview Data.
   */
  private onAction(choice: string | undefined, cycleId: string | undefined, table?: { id?: string; name: string }): void {
    if (choice === 'Show Log') this.log.show();
    else if (choice === 'Show Data' && table) void vscode.commands.executeCommand('tsq.previewData', table);
    else if (choice === 'Show Bad Records' && cycleId) void this.showBadRecords(cycleId);
    else if (choice === 'Check Load Status' && cycleId) void this.checkStatus(cycleId);
  }

  /**
   * "TSQ: Check Load Status": asks for a cycle id (the last load whose outcome was unknown is offered)
   * and says what that cycle did to its table, from the service's status (`checkCycle`).
   */
  async checkStatus(cycleId?: string): Promise<void> {
    const id =
      cycleId ??
      (await vscode.window.showInputBox({
        title: 'TSQ: Check Load Status',
        prompt: 'The cycle id of a load (the TSQ log and the message of a load whose outcome was unknown name it)',
        value: this.lastUnknownCycle ?? '',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'A cycle id'),
      }))?.trim();
    if (!id) return;
    try {
      const client = this.cycles.get(id)?.client ?? (await this.connections.getClient());
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading the status of cycle ${id}` }, () => checkCycle(client, id, { log: (l) => this.log.info(`Check Load Status: ${l}`) }));
      this.log.info(`Check Load Status: ${report.message}`);
      if (report.status) this.cycles.set(id, { client, file: this.cycles.get(id)?.file ?? id, parsingErrors: report.status.parsingErrors });
      const show = report.state === 'failed' || report.state === 'unknown' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
      const actions = report.status?.ignoredRowCount ? ['Show Bad Records', 'Show Log'] : ['Show Log'];
      void show(`TSQ: ${report.message}`, ...actions).then((c) => this.onAction(c, id));
    } catch (e) {
      this.log.error(`Check Load Status: cycle ${id}: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`TSQ: the status of cycle ${id} could not be read: ${errorMessage(e)}. Try again when the service can be reached.`, 'Show Log').then((c) => c && this.log.show());
    }
  }

  /** Opens the bad records file of a cycle in an editor, with its parsing errors (row and reason) beside it. */
  async showBadRecords(cycleId: string): Promise<void> {
    const entry = this.cycles.get(cycleId);
    if (!entry) {
      void vscode.window.showWarningMessage(`TSQ: cycle ${cycleId} is not one of this window's loads.`);
      return;
    }
    try {
      const text = await entry.client.badRecords(cycleId);
      this.log.info(`Load CSV: bad records of cycle ${cycleId} (${text.length} characters)`);
      const records = await vscode.workspace.openTextDocument({ content: text, language: 'plaintext' });
      await vscode.window.showTextDocument(records, { viewColumn: vscode.ViewColumn.One, preview: false });
      const errors = Array.isArray(entry.parsingErrors) ? entry.parsingErrors : [];
      const lines = [`Parsing errors of load cycle ${cycleId} (${basename(entry.file)}):`, ''];
      for (const entry of errors) {
        const pe = recordOr(entry);
        lines.push(`${pe.chunk !== undefined ? `chunk ${String(pe.chunk)}, ` : ''}row ${String(pe.row ?? '?')}: ${String(pe.reason ?? JSON.stringify(pe))}`);
      }
      if (!errors.length) lines.push(entry.parsingErrors === undefined ? '(the service reported no parsing errors)' : JSON.stringify(entry.parsingErrors, null, 2));
      const side = await vscode.workspace.openTextDocument({ content: `${lines.join('\n')}\n`, language: 'plaintext' });
      await vscode.window.showTextDocument(side, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
    } catch (e) {
      this.log.error(`Load CSV: the bad records of cycle ${cycleId} could not be read: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`TSQ: the bad records of cycle ${cycleId} could not be read: ${errorMessage(e)}`);
    }
  }
}

function lastTargetKey(file: string): string {
  return `tsq.load.lastTarget:${vscode.Uri.file(file).toString()}`;
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
