/**
 * package.json's `contributes.languageModelTools`, generated from the table of the agent tools
 * (common/src/agent/toolTable.ts `languageModelTools()`), so that the extension's tools say what `tsq mcp`'s say.
 *
 *   npm run gen:tools          (node --import tsx scripts/agentTools.ts) rewrites that array in package.json
 *
 * Only the array's text changes; the rest of the file keeps its layout. test/unit/agent-tools.test.ts fails
 * when the checked-in entries differ from the table in any field.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { languageModelTools } from '../common/src/agent/toolTable';

/** The offset just after the `]` closing the array that opens at `open` (a `[`), skipping strings. */
function arrayEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error('package.json: the languageModelTools array does not end');
}

/** `manifest` (package.json's text) with its `contributes.languageModelTools` array replaced by the table's. */
export function withLanguageModelTools(manifest: string): string {
  const key = /^( *)"languageModelTools": \[/m.exec(manifest);
  if (!key) throw new Error('package.json has no "languageModelTools" array');
  const open = key.index + key[0].length - 1;
  const json = JSON.stringify(languageModelTools(), null, 2).replace(/\n/g, `\n${key[1]}`);
  return manifest.slice(0, open) + json + manifest.slice(arrayEnd(manifest, open));
}

if (require.main === module) {
  const file = join(__dirname, '..', 'package.json');
  writeFileSync(file, withLanguageModelTools(readFileSync(file, 'utf8')));
}
