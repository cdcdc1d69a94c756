// Runs one benchmark module (its `run()` export) and writes its result as JSON.
// Usage: node --import tsx scripts/bench-one.mjs <module.bench.ts> <out.json>
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [mod, out] = process.argv.slice(2);
const { run } = await import(pathToFileURL(mod).href);
const result = await run();
writeFileSync(out, JSON.stringify(result, null, 2));
process.exit(0);
