/**
 * Validate and import of TML files against the service, the one implementation `tsq tml validate`,
 * `tsq tml import` (cli/src/tml.ts) and the editor's **TSQ: Validate TML** / **TSQ: Import TML**
 * (client/src/tmlCommands.ts) call: each file's local checks (`validateTml`, common/src/tml/tmlService.ts),
 * then the service's `VALIDATE_ONLY` or import (docs/service-interface.md §11) in batches of at most
 * TML_BATCH_SIZE for the files without a local error, and the service's answer as a diagnostic on the
 * line of the member its message names (`serviceDiagnostic`).
 *
 * No `vscode`, no LSP server, no file system: texts in, diagnostics and outcomes out.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { TML_BATCH_SIZE, type AnalyticsServiceClient, type ImportedTmlObject, type TmlImportPolicy } from '../api';
import { ServiceCatalogProvider } from '../catalog';
import { getLanguageService } from '../languageService/languageService';
import type { LanguageService } from '../languageService/types';
import { rangeOf, readTmlDocument, nodeOf } from './answerTml';
import { firstQueryNode } from './liveboardTml';
import { validateTml } from './tmlService';

/** One TML file: its name (a path or URI: it picks the kind by suffix), its text, and its diagnostics (local, then the service's). */
export interface TmlFile {
  uri: string;
  text: string;
  diagnostics: Diagnostic[];
}

/** The code of a diagnostic carrying the service's answer to a TML file. */
export const TML_SERVICE_CODE = 'tml.service';

/** Whether a diagnostic is an error (no severity counts as one, as LSP says). */
export const isTmlError = (d: Diagnostic): boolean => (d.severity ?? DiagnosticSeverity.Error) === DiagnosticSeverity.Error;

/**
 * The local checks of TML texts against the live catalog of `client` (one catalog for all files).
 * @param service the language service to read the search_queries with (default: one over `client`'s catalog)
 * @throws the catalog's error (AuthenticationError, ServiceError…) when it could not be read
 */
export async function checkTmlTexts(client: AnalyticsServiceClient, files: { uri: string; text: string }[], service?: LanguageService): Promise<TmlFile[]> {
  const catalog = service ? undefined : new ServiceCatalogProvider(client);
  const ls = service ?? getLanguageService({ catalog });
  const out: TmlFile[] = [];
  for (const f of files) {
    const diagnostics = await validateTml(ls, f.uri, f.text);
    if (catalog?.lastError) throw catalog.lastError;
    out.push({ uri: f.uri, text: f.text, diagnostics });
  }
  return out;
}

/** A member path named in a service message: `answer.tables[0].fqn`, `liveboard.visualizations[2].answer.search_query`, `worksheet.joins[0].on`, `guid`… */
const MEMBER_PATH = /\b((?:answer|liveboard|worksheet|model|table|guid|obj_id)(?:\.[A-Za-z_]\w*|\[\d+\])*)/g;

/**
 * The offsets of the member at `path` (`a.b[0].c`) of the document's contents, or undefined when the
 * file has no such member: a scalar's own range, for a map or list its key's (the member's line).
 */
function memberRange(root: unknown, path: string): [number, number] | undefined {
  let node = nodeOf(root);
  let at: [number, number] | undefined;
  for (const part of path.match(/[A-Za-z_]\w*|\[\d+\]/g) ?? []) {
    if (part.startsWith('[')) {
      if (!isSeq(node)) return undefined;
      node = nodeOf(node.items[Number(part.slice(1, -1))]);
      at = node?.range ? [node.range[0], node.range[1]] : undefined;
    } else {
      if (!isMap(node)) return undefined;
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === part);
      if (!pair) return undefined;
      node = nodeOf(pair.value);
      const r = (isScalar(node) ? node : nodeOf(pair.key))?.range;
      at = r ? [r[0], r[1]] : undefined;
    }
    if (!at) return undefined;
  }
  return at;
}

/**
 * The service's answer for one TML file as a diagnostic, or undefined when it is OK. The place: the
 * deepest member path the message names that the file has (`answer.tables[0]`, `guid`…: the emulator's
 * and the service's messages name members so); else, when it names `search_query`, the file's first
 * search_query; else the first line. The message keeps the service's text behind `the service: `.
 */
export function serviceDiagnostic(text: string, r: ImportedTmlObject): Diagnostic | undefined {
  if (r.status.status_code === 'OK') return undefined;
  const message = r.status.error_message ?? r.status.status_code;
  const file = readTmlDocument(text);
  let range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  let found = false;
  for (const m of message.matchAll(MEMBER_PATH)) {
    const at = memberRange(file.doc.contents, m[1]!);
    if (at) {
      range = rangeOf(file, at[0], at[1]);
      found = true;
      break;
    }
  }
  if (!found && /search_query/.test(message)) {
    const q = firstQueryNode(text);
    if (q?.node.range) range = rangeOf(q.file, q.node.range[0], q.node.range[1]);
  }
  return {
    range,
    severity: r.status.status_code === 'WARNING' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Error,
    message: `the service: ${message}`,
    code: TML_SERVICE_CODE,
    source: 'tsq',
  };
}

/** Progress of a batched call: files done of all, and the batch just ended of all batches. */
export type TmlBatchProgress = (done: number, total: number, batch: number, batches: number) => void;

/**
 * The service's `VALIDATE_ONLY` of the files without a local error, in batches of TML_BATCH_SIZE; each
 * answer not OK is added to its file's diagnostics (`serviceDiagnostic`). Files with a local error are
 * not sent (their diagnostics say why).
 * @param beforeBatch called before each batch; it may throw to stop (Ctrl-C between batches)
 * @throws the service's error (ServiceError, AuthenticationError…), or what `beforeBatch` throws
 */
export async function validateTmlOnService(client: AnalyticsServiceClient, files: TmlFile[], opts: { beforeBatch?: (sent: number, total: number, batch: number, batches: number) => void; progress?: TmlBatchProgress } = {}): Promise<void> {
  const toSend = files.filter((f) => !f.diagnostics.some(isTmlError));
  const batches = Math.ceil(toSend.length / TML_BATCH_SIZE);
  for (let i = 0, batch = 1; i < toSend.length; i += TML_BATCH_SIZE, batch++) {
    opts.beforeBatch?.(i, toSend.length, batch, batches);
    const some = toSend.slice(i, i + TML_BATCH_SIZE);
    // no signal: an interruption lets the batch in flight finish
    const results = await client.importTml(some.map((f) => f.text), 'VALIDATE_ONLY', {});
    some.forEach((f, k) => {
      const d = results[k] && serviceDiagnostic(f.text, results[k]);
      if (d) f.diagnostics.push(d);
    });
    opts.progress?.(Math.min(i + TML_BATCH_SIZE, toSend.length), toSend.length, batch, batches);
  }
}

/** What the import did with one file. */
export interface TmlImportOutcome {
  file: TmlFile;
  /** `OK`/`WARNING`: imported; `ERROR`: the service refused it; `NOT_SENT`: a local error, or all-or-none and another file's local error. */
  status: 'OK' | 'WARNING' | 'ERROR' | 'NOT_SENT';
  /** The GUID of the imported object (OK, WARNING). */
  guid?: string;
  /** The service's message (ERROR, WARNING). */
  message?: string;
}

/**
 * Imports the files without a local error under `policy`, in batches of TML_BATCH_SIZE (all-or-none
 * holds per batch). Under ALL_OR_NONE nothing is sent when any file has a local error. A file the
 * service refused gets the service's diagnostic (`serviceDiagnostic`).
 * @returns one outcome per file, in order
 * @throws the service's error (ServiceError, AuthenticationError, an abort of `signal`)
 */
export async function importTmlFiles(client: AnalyticsServiceClient, files: TmlFile[], policy: TmlImportPolicy, signal?: AbortSignal): Promise<TmlImportOutcome[]> {
  const outcomes = new Map<TmlFile, TmlImportOutcome>();
  const bad = files.filter((f) => f.diagnostics.some(isTmlError));
  for (const f of bad) outcomes.set(f, { file: f, status: 'NOT_SENT' });
  const toSend = policy === 'ALL_OR_NONE' && bad.length ? [] : files.filter((f) => !outcomes.has(f));
  for (const f of files) if (!outcomes.has(f) && !toSend.includes(f)) outcomes.set(f, { file: f, status: 'NOT_SENT' });
  for (let i = 0; i < toSend.length; i += TML_BATCH_SIZE) {
    const batch = toSend.slice(i, i + TML_BATCH_SIZE);
    const results = await client.importTml(batch.map((f) => f.text), policy, {}, { signal });
    batch.forEach((f, k) => {
      const r = results[k];
      const code = r?.status.status_code;
      if (code === 'OK' || code === 'WARNING') outcomes.set(f, { file: f, status: code, guid: r?.header?.id_guid, ...(r?.status.error_message ? { message: r.status.error_message } : {}) });
      else {
        outcomes.set(f, { file: f, status: 'ERROR', message: r?.status.error_message ?? 'no answer from the service' });
        const d = r && serviceDiagnostic(f.text, r);
        if (d) f.diagnostics.push(d);
      }
    });
  }
  return files.map((f) => outcomes.get(f)!);
}
