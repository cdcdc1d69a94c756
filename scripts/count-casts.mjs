// Counts the type assertions of the shipped sources: `x as T` and `<T>x`, not `as const` (which narrows and
// asserts nothing), in the .ts files of common/, server/, client/, emulator/ and cli/ (no tests, no
// declarations). `node scripts/count-casts.mjs` prints the total and the count per folder; `--json` prints
// { total, lines, perThousandLines, folders: { folder: count } }. test/unit/casts.test.ts keeps the total
// under its budget, so a new cast is a choice made in review.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders whose sources are counted, relative to the repository's root. */
export const CAST_PARTS = ['common/src', 'server/src', 'client/src', 'client/webview', 'emulator/src', 'cli/src'];

/**
 * The `.ts` files below `dir` (sorted, no `.d.ts`, no node_modules).
 * @param {string} dir
 * @returns {string[]}
 */
function tsFiles(dir) {
  /** @type {string[]} */
  const out = [];
  let names;
  try { names = readdirSync(dir).sort(); } catch { return out; }
  for (const name of names) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== 'node_modules') out.push(...tsFiles(p)); }
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/**
 * The type assertions of one source text, `as const` excluded.
 * @param {string} fileName the name (for the parser's kind only)
 * @param {string} text
 * @returns {number}
 */
export function countCastsInText(fileName, text) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  let n = 0;
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const t = node.type;
      const isConst = ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName) && t.typeName.text === 'const';
      if (!isConst) n++;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return n;
}

/**
 * Counts the casts of the repository at `root`.
 * @param {string} root the repository's root
 * @returns {{ total: number, lines: number, perThousandLines: number, folders: Record<string, number> }}
 */
export function countCasts(root) {
  /** @type {Record<string, number>} */
  const folders = {};
  let total = 0;
  let lines = 0;
  for (const part of CAST_PARTS) {
    for (const file of tsFiles(join(root, part))) {
      const text = readFileSync(file, 'utf8');
      lines += text.split('\n').length;
      const n = countCastsInText(file, text);
      if (n === 0) continue;
      const folder = relative(root, dirname(file)).split('\\').join('/');
      folders[folder] = (folders[folder] ?? 0) + n;
      total += n;
    }
  }
  return { total, lines, perThousandLines: Math.round((total / lines) * 10000) / 10, folders };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // a reader that stops early (`| head -1`) closes the pipe: that is the end of the output, not an error
  process.stdout.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  const report = countCasts(resolve(dirname(fileURLToPath(import.meta.url)), '..'));
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    process.stdout.write(`${report.total} casts in ${report.lines} lines (${report.perThousandLines} per 1,000)\n`);
    for (const [folder, n] of Object.entries(report.folders).sort((a, b) => b[1] - a[1])) process.stdout.write(`${String(n).padStart(5)}  ${folder}\n`);
  }
}
