/**
 * The review step of Load CSV into Table: the sniffed load definition (seed §2.2 StartLoad) shown as a
 * quick pick with a preview on the target's columns, and the prompts that change each of its fields.
 */
import * as vscode from 'vscode';
import { basename } from 'node:path';
import { errorMessage } from '../service';
import { describeSeparator, isSupportedEncoding, parseRows, completeRecords, type SniffResult, type TargetColumn } from '../../../common/src/load/sniff';
import { toDataType } from '../../../common/src/catalog/columns';
import { previewRows, savedDefinitionPath, targetText, type LoadTarget } from '../../../common/src/load/definition';
import type { FullFormat } from '../../../common/src/load/values';

/** A table the user can load into: its target and typed columns (from metadata/details, docs/service-notes.md §3.2). */
export interface TableChoice {
  id?: string;
  name: string;
  target: LoadTarget;
  columns: TargetColumn[];
}

function unescapeChar(s: string): string {
  return s === '\\t' ? '\t' : s;
}

/** The load definition being reviewed: what the review's fields change. */
export interface Draft {
  format: FullFormat;
  loadOptions: { empty_target: boolean; max_ignored_rows: number };
  encoding: string;
}

export type Action = 'load' | 'save' | 'mode' | 'maxIgnored' | 'separator' | 'header' | 'enclosing' | 'type' | 'nullValue' | 'flexible' | 'dates' | 'booleans' | 'encoding' | 'trailing' | 'none';
export type ReviewItem = vscode.QuickPickItem & { action: Action };

/** The table choice of a table's metadata/details storable (docs/service-notes.md §3.2), or undefined without a database. */
export function tableChoiceOf(s: { header?: { id?: string; name?: string; databaseStripe?: unknown; schemaStripe?: unknown }; logicalTableContent?: { physicalTableName?: unknown }; columns?: { header?: { name?: string }; dataType?: string }[] } & Record<string, unknown>): TableChoice | undefined {
  const h = s.header;
  const database = typeof h?.databaseStripe === 'string' ? h.databaseStripe : undefined;
  const table = typeof s.logicalTableContent?.physicalTableName === 'string' ? s.logicalTableContent.physicalTableName : h?.name;
  if (!h?.name || !database || !table) return undefined;
  return {
    id: h.id,
    name: h.name,
    target: { database, ...(typeof h.schemaStripe === 'string' && h.schemaStripe ? { schema: h.schemaStripe } : {}), table },
    columns: (s.columns ?? []).filter((c) => c.header?.name).map((c) => ({ name: c.header!.name!, dataType: toDataType(c.dataType) })),
  };
}

/** The review quick pick: Load, every field of the definition, the sniffer's warnings, and the preview on the target's columns. */
export function reviewItems(file: string, table: TableChoice, draft: Draft, sniffed: SniffResult, sample: Buffer, complete: boolean): ReviewItem[] {
  const { format, loadOptions, encoding } = draft;
  const text = new TextDecoder(encoding).decode(completeRecords(sniffed.bom ? sample.subarray(3) : sample, format, complete));
  let rows: (string | null)[][] = [];
  let parseError: string | undefined;
  try {
    rows = parseRows(text, format, 21);
  } catch (e) {
    parseError = errorMessage(e);
  }
  const header = format.has_header_row ? rows.shift()?.map((v) => v ?? '') : undefined;
  const preview = previewRows(rows.slice(0, 20), header, table.columns, format);
  const mode = loadOptions.empty_target ? 'Replace' : 'Append';
  const items: ReviewItem[] = [
    {
      label: `$(cloud-upload) Load into ${targetText(table.target)}`,
      description: `${mode === 'Replace' ? 'replace all rows' : 'append'} · max ignored rows ${loadOptions.max_ignored_rows}`,
      detail: preview.badRows ? `$(warning) ${preview.badRows} of the ${preview.rows.length} previewed rows will be refused` : undefined,
      action: 'load',
    },
    ...(encoding === sniffed.encoding ? sniffed.warnings : []).map((w): ReviewItem => ({ label: `$(warning) ${w}`, action: 'encoding' })),
    { label: '', kind: vscode.QuickPickItemKind.Separator, action: 'none' },
    { label: `Mode: ${mode}`, description: mode === 'Replace' ? 'the table is emptied first (empty_target)' : 'rows are added to the table', action: 'mode' },
    { label: `Max ignored rows: ${loadOptions.max_ignored_rows}`, description: 'more bad rows than this abort the load', action: 'maxIgnored' },
    { label: `Format: ${format.type}`, description: format.type === 'csv' ? 'fields may be enclosed' : 'escape character and null marker', action: 'type' },
    { label: `Separator: ${describeSeparator(format.field_separator)}`, action: 'separator' },
    { label: `Header row: ${format.has_header_row ? 'yes' : 'no'}`, description: header ? header.join(', ').slice(0, 120) : undefined, action: 'header' },
    format.type === 'csv'
      ? { label: `Enclosing character: ${format.enclosing_character || '(none)'}`, action: 'enclosing' }
      : { label: `Null marker: ${format.null_value === '' ? '(empty field)' : format.null_value}`, description: format.escape_character ? `escape ${format.escape_character}` : undefined, action: 'nullValue' },
    {
      label: `Dates: ${format.date_time.converted_to_epoch && format.type === 'csv' ? 'epoch seconds' : `${format.date_time.date_format} · ${format.date_time.date_time_format}`}`,
      description: `times ${format.date_time.time_format}`,
      action: 'dates',
    },
    { label: `Booleans: ${format.boolean.use_bit_values ? '0x1 / 0x0' : `${format.boolean.true_format} / ${format.boolean.false_format}`}`, action: 'booleans' },
    { label: `Flexible: ${format.flexible ? 'on' : 'off'}`, description: format.flexible ? 'extra fields dropped, missing ones null' : 'rows must match the table exactly', action: 'flexible' },
    { label: `Trailing separator: ${format.trailing_field_separator ? 'yes' : 'no'}`, action: 'trailing' },
    { label: `Encoding: ${encoding}${sniffed.bom ? ' (with BOM, not sent)' : ''}`, description: encoding === sniffed.encoding ? sniffed.encodingReason : 'chosen by you', action: 'encoding' },
    { label: `$(save) Save as ${basename(savedDefinitionPath(file))}`, description: 'reused by Load Again', action: 'save' },
    { label: 'Preview', kind: vscode.QuickPickItemKind.Separator, action: 'none' },
  ];
  if (parseError) items.push({ label: `$(error) The file does not parse with this format: ${parseError}`, action: 'none' });
  if (preview.columnCount) items.push({ label: `$(warning) Column count: ${preview.columnCount}`, action: 'none' });
  for (const m of preview.headerMismatches) items.push({ label: `$(info) ${m}`, action: 'none' });
  if (table.columns.length) items.push({ label: table.columns.map((c) => `${c.name}:${c.dataType}`).join(' | '), description: 'target columns', action: 'none' });
  for (const r of preview.rows) {
    items.push({
      label: `${r.problems.length ? '$(warning)' : '$(check)'} ${r.cells.map((c) => (c === null ? '∅' : c.replace(/\s+/g, ' '))).join(' | ')}`.slice(0, 300),
      description: `record ${r.record}`,
      detail: r.problems.length ? r.problems.join('; ') : undefined,
      action: 'none',
    });
  }
  return items;
}

/** Asks for the new value of one field of the review and writes it into `draft` (unchanged when the prompt is dismissed). */
export async function changeField(action: Action, draft: Draft): Promise<void> {
  const { format } = draft;
  const ask = (prompt: string, value: string, validate?: (v: string) => string | undefined) => vscode.window.showInputBox({ title: `TSQ: ${prompt}`, value, validateInput: validate, ignoreFocusOut: true });
  const yesNo = async (title: string, current: boolean) => (await vscode.window.showQuickPick(['yes', 'no'], { title: `TSQ: ${title}`, placeHolder: current ? 'yes' : 'no' })) ?? (current ? 'yes' : 'no');
  switch (action) {
    case 'mode':
      draft.loadOptions = { ...draft.loadOptions, empty_target: !draft.loadOptions.empty_target };
      break;
    case 'maxIgnored': {
      const v = await ask('Most rows that may be ignored (max_ignored_rows)', String(draft.loadOptions.max_ignored_rows), (s) => (/^\d+$/.test(s.trim()) ? undefined : 'A whole number ≥ 0'));
      if (v !== undefined) draft.loadOptions = { ...draft.loadOptions, max_ignored_rows: Number(v.trim()) };
      break;
    }
    case 'type': {
      const v = await vscode.window.showQuickPick(['csv', 'delimited'], { title: 'TSQ: Format type' });
      if (v) draft.format = { ...format, type: v as 'csv' | 'delimited' };
      break;
    }
    case 'separator': {
      const v = await ask('Field separator (one character; \\t for tab)', format.field_separator === '\t' ? '\\t' : format.field_separator, (s) => (unescapeChar(s).length === 1 ? undefined : 'One character'));
      if (v !== undefined) draft.format = { ...format, field_separator: unescapeChar(v) };
      break;
    }
    case 'header':
      draft.format = { ...format, has_header_row: (await yesNo('Is the first row a header?', format.has_header_row)) === 'yes' };
      break;
    case 'enclosing': {
      const v = await ask('Enclosing character (empty for none)', format.enclosing_character, (s) => (s.length <= 1 ? undefined : 'One character or empty'));
      if (v !== undefined) draft.format = { ...format, enclosing_character: v };
      break;
    }
    case 'nullValue': {
      const v = await ask('Null marker (a field equal to it is null; delimited only)', format.null_value);
      if (v === undefined) break;
      const e = await ask('Escape character (empty for none; delimited only)', format.escape_character, (s) => (s.length <= 1 ? undefined : 'One character or empty'));
      draft.format = { ...format, null_value: v, escape_character: e ?? format.escape_character };
      break;
    }
    case 'dates':
      draft.format = await askDates(format, ask);
      break;
    case 'booleans': {
      const bits = await vscode.window.showQuickPick(['true/false texts', 'bit values 0x1/0x0'], { title: 'TSQ: Booleans in the file are…' });
      if (!bits) break;
      if (bits.startsWith('bit')) {
        draft.format = { ...format, boolean: { ...format.boolean, use_bit_values: true } };
        break;
      }
      const tf = await ask('Text meaning true', format.boolean.true_format);
      const ff = tf === undefined ? undefined : await ask('Text meaning false', format.boolean.false_format);
      if (ff !== undefined) draft.format = { ...format, boolean: { use_bit_values: false, true_format: tf!, false_format: ff } };
      break;
    }
    case 'flexible':
      draft.format = { ...format, flexible: !format.flexible };
      break;
    case 'trailing':
      draft.format = { ...format, trailing_field_separator: !format.trailing_field_separator };
      break;
    case 'encoding': {
      const v = await ask('Encoding of the file (utf-8, windows-1252, iso-8859-15, shift_jis, …)', draft.encoding, (s) => {
        try {
          const e = new TextDecoder(s.trim()).encoding;
          return isSupportedEncoding(e) ? undefined : `${e} cannot be loaded: save the file as UTF-8`;
        } catch {
          return 'Not an encoding name';
        }
      });
      if (v !== undefined) draft.encoding = new TextDecoder(v.trim()).encoding;
      break;
    }
    default:
      break;
  }
}

/** Asks how dates are written: epoch seconds, or the three strptime formats. */
async function askDates(format: FullFormat, ask: (prompt: string, value: string) => Thenable<string | undefined>): Promise<FullFormat> {
  const epoch = await vscode.window.showQuickPick(['formatted text', 'epoch seconds'], { title: 'TSQ: Dates in the file are…', placeHolder: format.date_time.converted_to_epoch ? 'epoch seconds' : 'formatted text' });
  if (!epoch) return format;
  if (epoch === 'epoch seconds') return { ...format, date_time: { ...format.date_time, converted_to_epoch: true } };
  const d = await ask('Date format (strptime, e.g. %Y-%m-%d)', format.date_time.date_format);
  const dt = d === undefined ? undefined : await ask('Date-time format (strptime, e.g. %Y-%m-%d %H:%M:%S)', format.date_time.date_time_format);
  const t = dt === undefined ? undefined : await ask('Time format (strptime, e.g. %H:%M:%S)', format.date_time.time_format);
  if (t === undefined) return format;
  return { ...format, date_time: { ...format.date_time, converted_to_epoch: false, date_format: d!, date_time_format: dt!, time_format: t } };
}
