/**
 * The text of an exported TML document as the service writes it (docs/service-notes.md "How the service
 * writes a search_query"): YAML in block style, two-space indent, a sequence's `-` under its key, no line
 * folding, a string plain where YAML allows it and double-quoted otherwise, `"y"` quoted as a YAML 1.1
 * boolean would be (thoughtspot/thoughtspot_tml `DUMMY.answer.tml`, the exported liveboards of
 * thoughtspot/developer-docs `tml.adoc`); JSON as `{"key": value,"next": value}` (`tml.adoc`'s `edoc`
 * examples). A document imported as YAML keeps each scalar's written style where its value is unchanged,
 * so a file the service wrote comes back byte for byte.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';

/** The options of every YAML text the emulator exports. */
const YAML_OPTIONS = { lineWidth: 0, indentSeq: false } as const;

/** Keys a YAML 1.1 reader takes for booleans: the service quotes them (`"y":` in every exported chart). */
const YAML11_BOOLEAN_KEYS = new Set(['y', 'Y', 'n', 'N', 'yes', 'no', 'on', 'off']);

/**
 * `doc` as YAML text in the service's style. `source`, the YAML text the document was imported from,
 * lends its scalars' styles (quotes, block scalars, `2.0`) to every scalar of `doc` whose value at the
 * same path is unchanged.
 */
export function serviceYaml(doc: Record<string, unknown>, source?: string): string {
  const out = new Document(doc);
  let from: Node | undefined;
  if (source !== undefined && !/^\s*[{[]/.test(source)) {
    const parsed = parseDocument(source);
    if (parsed.errors.length === 0) from = parsed.contents ?? undefined;
  }
  styleLike(out.contents ?? undefined, from);
  return out.toString(YAML_OPTIONS);
}

/** Gives each scalar of `node` the style of the scalar of equal value at the same place in `from`; keys too. */
function styleLike(node: unknown, from: unknown): void {
  // a string of the emulator's own that needs quotes gets double quotes, as the service's (`"{\"k\": 1}"`)
  if (isScalar(node) && typeof node.value === 'string' && node.value.includes('"') && !(isScalar(from) && from.value === node.value)) node.type = 'QUOTE_DOUBLE';
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key;
      const keyText = isScalar(key) ? String(key.value) : undefined;
      const twin = isMap(from) && keyText !== undefined ? from.items.find((p) => isScalar(p.key) && String(p.key.value) === keyText) : undefined;
      if (isScalar(key)) {
        if (twin && isScalar(twin.key)) key.type = twin.key.type;
        else if (YAML11_BOOLEAN_KEYS.has(String(key.value))) key.type = 'QUOTE_DOUBLE';
      }
      styleLike(pair.value, twin?.value);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => styleLike(item, isSeq(from) ? from.items[i] : undefined));
  } else if (isScalar(node) && isScalar(from) && from.value === node.value) {
    node.type = from.type;
    if (typeof node.value === 'number') {
      node.format = from.format;
      node.minFractionDigits = from.minFractionDigits;
    }
  }
}

/** `value` as JSON text in the service's style: `": "` after a key, `,` alone between members and items. */
export function serviceJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => serviceJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}: ${serviceJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
