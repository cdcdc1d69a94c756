/**
 * The workspace index: every `.tsq`, Answer, Liveboard and worksheet/model/table/view TML file of a
 * workspace read for navigation (indexedFile.ts), each column reference resolved to (data source,
 * column) and each data-source reference to its data source. Names match case-insensitively, as the
 * service reads them; a data source written by GUID is the one a file names with that GUID beside its
 * name (a `tables` entry's `fqn` and `name`, a definition's `guid`). Incremental: `set` re-reads one file.
 *
 * Pure: no `vscode`, no LSP server, no I/O (the server reads the files and hands the texts in).
 */
import { readIndexedFile, type ColumnUse, type DataSourceUse, type IndexedFile, type IndexedKind, type IndexedObject } from './indexedFile';

/** What a position names: a column of a data source, or a data source (names as written; `dataSource` '' when none is in force). */
export type NavigationTarget =
  | { kind: 'column'; column: string; dataSource: string }
  | { kind: 'dataSource'; dataSource: string };

/** A reference found by the index: the file and the use. */
export interface IndexedReference<U = ColumnUse | DataSourceUse> {
  file: IndexedFile;
  use: U;
}

/** A symbol of the workspace: a data source, an answer or a liveboard, at its declaration or first use. */
export interface WorkspaceObject {
  kind: 'dataSource' | IndexedObject['kind'];
  name: string;
  file: IndexedFile;
  start: number;
  end: number;
}

const key = (s: string) => s.trim().toLowerCase();

/** The index itself: files by URI, and which files name each column and each data source. */
export class WorkspaceIndex {
  private readonly files = new Map<string, IndexedFile>();
  private readonly byColumn = new Map<string, Set<string>>();
  private readonly byDataSource = new Map<string, Set<string>>();
  /**
   * The data source of `.tsq` queries with no `@datasource` (`tsq.defaultDataSource`); undefined: such
   * a query's columns belong to no data source ('') and match only each other.
   */
  defaultDataSource: string | undefined;
  /** GUID (lower case) → name → how many files state it. */
  private readonly aliases = new Map<string, Map<string, number>>();

  /** Reads (or re-reads) one file from its text and returns what was indexed. */
  set(uri: string, text: string, kind?: IndexedKind): IndexedFile {
    this.delete(uri);
    const file = readIndexedFile(uri, text, kind);
    this.files.set(uri, file);
    for (const u of file.columns) addTo(this.byColumn, key(u.column), uri);
    for (const d of file.dataSources) addTo(this.byDataSource, key(d.dataSource), uri);
    for (const [guid, name] of file.aliases) {
      const names = this.aliases.get(key(guid)) ?? new Map<string, number>();
      names.set(name, (names.get(name) ?? 0) + 1);
      this.aliases.set(key(guid), names);
    }
    return file;
  }

  /** Drops one file (deleted, or no longer under a workspace folder). */
  delete(uri: string): void {
    const file = this.files.get(uri);
    if (!file) return;
    this.files.delete(uri);
    for (const u of file.columns) this.byColumn.get(key(u.column))?.delete(uri);
    for (const d of file.dataSources) this.byDataSource.get(key(d.dataSource))?.delete(uri);
    for (const [guid, name] of file.aliases) {
      const names = this.aliases.get(key(guid));
      const n = (names?.get(name) ?? 0) - 1;
      if (names && n > 0) names.set(name, n);
      else names?.delete(name);
    }
  }

  /** The indexed file of a URI, if any. */
  get(uri: string): IndexedFile | undefined {
    return this.files.get(uri);
  }

  /** How many files the index holds. */
  get size(): number {
    return this.files.size;
  }

  /** Every indexed file. */
  all(): IterableIterator<IndexedFile> {
    return this.files.values();
  }

  /** The data source a name or GUID stands for, in lower case: a GUID some file states a name of is that name. */
  canonical(ref: string): string {
    const k = key(ref);
    const names = this.aliases.get(k);
    const first = names && names.size ? names.keys().next().value : undefined;
    return first === undefined ? k : key(first);
  }

  /** Every name and GUID that stands for the data source `canonical` (lower case). */
  private refsOf(canonical: string): string[] {
    const out = [canonical];
    for (const [guid, names] of this.aliases) if ([...names.keys()].some((n) => key(n) === canonical)) out.push(guid);
    return out;
  }

  /**
   * The data source a column reference belongs to (lower case, '' when none is in force): its only
   * candidate, else the first whose definition in the workspace declares the column, else the first.
   */
  dataSourceOf(use: ColumnUse): string {
    const candidates = use.dataSources;
    if (candidates.length === 0) return this.defaultDataSource?.trim() ? this.canonical(this.defaultDataSource) : '';
    if (candidates.length === 1) return this.canonical(candidates[0]!);
    const declared = this.declarationsOf(use.column);
    for (const c of candidates) if (declared.some((d) => this.dataSourceOf(d.use) === this.canonical(c))) return this.canonical(c);
    return this.canonical(candidates[0]!);
  }

  private declarationsOf(column: string): IndexedReference<ColumnUse>[] {
    const out: IndexedReference<ColumnUse>[] = [];
    for (const uri of this.byColumn.get(key(column)) ?? []) {
      const file = this.files.get(uri)!;
      for (const use of file.columns) if (use.declaration && key(use.column) === key(column)) out.push({ file, use });
    }
    return out;
  }

  /** What is at `offset` of the file `uri`: a column or a data source, or undefined (whitespace, a keyword, a comment, past the end). */
  targetAt(uri: string, offset: number): { target: NavigationTarget; use: ColumnUse | DataSourceUse } | undefined {
    const file = this.files.get(uri);
    if (!file || offset < 0 || offset > file.length) return undefined;
    const column = spanAt(file.columns, offset);
    if (column) return { target: { kind: 'column', column: column.column, dataSource: this.dataSourceOf(column) }, use: column };
    const ds = spanAt(file.dataSources, offset);
    if (ds) return { target: { kind: 'dataSource', dataSource: this.canonical(ds.dataSource) }, use: ds };
    return undefined;
  }

  /** Every reference of a target across the workspace, by file; declarations only when `includeDeclaration`. */
  references(target: NavigationTarget, includeDeclaration: boolean): IndexedReference[] {
    const out: IndexedReference[] = [];
    const ds = this.canonical(target.dataSource);
    if (target.kind === 'column') {
      const col = key(target.column);
      for (const uri of this.byColumn.get(col) ?? []) {
        const file = this.files.get(uri)!;
        for (const use of file.columns) {
          if ((use.declaration && !includeDeclaration) || key(use.column) !== col) continue;
          if (this.dataSourceOf(use) === ds) out.push({ file, use });
        }
      }
      return out;
    }
    const uris = new Set(this.refsOf(ds).flatMap((ref) => [...(this.byDataSource.get(ref) ?? [])]));
    for (const uri of uris) {
      const file = this.files.get(uri)!;
      for (const use of file.dataSources) if ((includeDeclaration || !use.declaration) && this.canonical(use.dataSource) === ds) out.push({ file, use });
    }
    return out;
  }

  /** Where a target is declared in the workspace (a definition TML), or [] when no file declares it. */
  declarations(target: NavigationTarget): IndexedReference[] {
    return this.references(target, true).filter((r) => r.use.declaration);
  }

  /** The columns the workspace declares for a data source (its definition TML's), by name. */
  declaredColumns(dataSource: string): ColumnUse[] {
    const ds = this.canonical(dataSource);
    const out: ColumnUse[] = [];
    for (const file of this.files.values()) {
      if (file.kind === 'tsq' || file.kind === 'answer' || file.kind === 'liveboard') continue;
      for (const use of file.columns) if (use.declaration && this.canonical(use.dataSources[0] ?? '') === ds) out.push(use);
    }
    return out;
  }

  /**
   * The data sources, answers and liveboards of the workspace whose name holds the letters of `query` in
   * order (case-insensitive; all for ''): a data source at its declaration, else its first reference.
   */
  symbols(query: string): WorkspaceObject[] {
    const q = key(query);
    const matches = (name: string) => {
      let i = 0;
      for (const ch of name.toLowerCase()) if (ch === q[i]) i++;
      return i === q.length;
    };
    const out: WorkspaceObject[] = [];
    const sources = new Map<string, WorkspaceObject>();
    const declared = new Set<string>();
    for (const file of this.files.values()) {
      for (const o of file.objects) if (matches(o.name)) out.push({ kind: o.kind, name: o.name, file, start: o.start, end: o.end });
      for (const d of file.dataSources) {
        const c = this.canonical(d.dataSource);
        if (declared.has(c) || (sources.has(c) && !d.declaration) || !matches(d.dataSource)) continue;
        sources.set(c, { kind: 'dataSource', name: d.dataSource, file, start: d.start, end: d.end });
        if (d.declaration) declared.add(c);
      }
    }
    return [...sources.values(), ...out];
  }
}

function addTo(map: Map<string, Set<string>>, k: string, uri: string): void {
  const set = map.get(k);
  if (set) set.add(uri);
  else map.set(k, new Set([uri]));
}

/** The span of a sorted list that holds `offset` (its end included), by binary search. */
function spanAt<T extends { start: number; end: number }>(list: readonly T[], offset: number): T | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.end < offset) lo = mid + 1;
    else hi = mid;
  }
  const s = list[lo];
  return s && s.start <= offset && offset <= s.end ? s : undefined;
}

/** The LSP position of an offset of an indexed file (line starts kept by the index). */
export function positionIn(file: IndexedFile, offset: number): { line: number; character: number } {
  const starts = file.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo]! };
}

/** The offset of an LSP position in an indexed file (past the end: the file's length + 1, so nothing is there). */
export function offsetIn(file: IndexedFile, position: { line: number; character: number }): number {
  if (position.line < 0 || position.character < 0) return -1;
  if (position.line >= file.lineStarts.length) return file.length + 1;
  const start = file.lineStarts[position.line]!;
  const next = position.line + 1 < file.lineStarts.length ? file.lineStarts[position.line + 1]! - 1 : file.length;
  return position.character > next - start ? file.length + 1 : start + position.character;
}
