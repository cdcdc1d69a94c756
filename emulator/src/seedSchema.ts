/**
 * The seed folder's `model.json` is checked once, as it is read, against its JSON Schema
 * (emulator/model.schema.json, draft 2020-12) with Ajv; `applySeed` then trusts its shape and checks only
 * what a schema cannot see (a user's group, a worksheet's table, an author that must exist).
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject } from 'ajv';
import modelSchema from '../model.schema.json';

const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, allowUnionTypes: true, verbose: true });
const checkModel = ajv.compile(modelSchema);

/** At most this many schema errors are named in one message. */
const MAX_NAMED_ERRORS = 5;

/** One schema error as a person reads it: where in model.json, and what is wrong there. */
function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'the model' : e.instancePath;
  if (e.keyword === 'unevaluatedProperties' || e.keyword === 'additionalProperties') {
    const name = (e.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ?? (e.params as { additionalProperty?: string }).additionalProperty;
    return `${where}: "${name}" is not a member the schema declares`;
  }
  if (e.keyword === 'enum') return `${where} is ${JSON.stringify(e.data)}, not one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${where} ${e.message ?? 'is not valid'}`;
}

/**
 * Checks a parsed `model.json` against emulator/model.schema.json.
 * @param model the parsed JSON.
 * @param file the file it was read from, named in the error.
 * @throws Error naming each problem (at most five) by its JSON path, and where the format is described.
 */
export function validateSeedModel(model: unknown, file: string): void {
  if (checkModel(model)) return;
  const errors = checkModel.errors ?? [];
  // A member that fails inside `oneOf`/`anyOf` reports one error per branch; name each place once.
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const e of errors) {
    const line = describe(e);
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  const named = lines.slice(0, MAX_NAMED_ERRORS).map((l) => `  - ${l}`).join('\n');
  const more = lines.length > MAX_NAMED_ERRORS ? `\n  (and ${lines.length - MAX_NAMED_ERRORS} more)` : '';
  throw new Error(`the seed model ${file} does not follow emulator/model.schema.json, so the emulator cannot start from it:\n${named}${more}\nCorrect these members (the schema and emulator/README.md describe the format).`);
}
