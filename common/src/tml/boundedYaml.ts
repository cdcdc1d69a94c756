/**
 * The one reader of TML's YAML (and JSON) for every part: the language service's TML files
 * (answerTml.ts, liveboardTml.ts) and the emulator's TML import and validate (emulator/src/tml/answers.ts).
 * It reads with the `yaml` package (https://eemeli.org/yaml/) within limits, so that a text cannot make
 * the work grow faster than its length nor past a fixed size (the limits: `YamlLimits`).
 * Duplicate keys are found with one `Set` per mapping (linear), not by the package's `uniqueKeys`
 * check, which compares every key with every earlier one (30,000 keys took seconds); they are reported
 * as the package reports them (`DUPLICATE_KEY`). Imports only the `yaml` package: the emulator may use it
 * (docs/architecture.md).
 */
import { Composer, Document, isCollection, isMap, isNode, isScalar, Lexer, LineCounter, Parser, YAMLParseError, type CST, type Node } from 'yaml';

type Token = CST.Token;

/**
 * The limits of `readBoundedYaml`; `TML_LIMITS` are those of every TML reader.
 * - `chars`: a longer text is not read at all;
 * - `entries`: map keys and list items, bounded by counting the lexer's indicators (`:`, `?`, `,`, `-`:
 *   an upper bound of the entries) as the one lexing pass feeds the parser, stopping at the limit;
 * - `aliases`: `*alias` tokens, counted the same way (each alias is expanded by whoever reads the values);
 * - `depth`: collections nested in collections, checked on the document by a walk with its own stack;
 * - `errors`: YAML errors and warnings: the first ones are kept and no more are made; at a syntax error
 *   past them the reading stops (the document holds what was read before it). Never `exceeded`.
 */
export interface YamlLimits {
  /** Most characters (UTF-16 code units) of the text. */
  chars: number;
  /** Most entries: map keys plus list items (counted from the lexer's indicators, an upper bound). */
  entries: number;
  /** Most collections nested in one another (a top-level mapping is depth 1). */
  depth: number;
  /** Most alias references (`*name`). */
  aliases: number;
  /** Most YAML errors (and warnings) kept; no more are made, and the reading stops at a syntax error past them. */
  errors: number;
}

/**
 * The limits of a TML text, in the language service and the emulator alike. An Answer TML is a few
 * hundred entries; a Liveboard TML of 50 visualizations some thousands; the emulator takes request
 * bodies of at most 1 MiB (emulator/src/app.ts `SIGNED_IN_BODY_LIMIT`).
 */
export const TML_LIMITS: YamlLimits = { chars: 1024 * 1024, entries: 20_000, depth: 64, aliases: 100, errors: 100 };

/** Which limit a text went over. */
export interface YamlLimitExceeded {
  limit: keyof YamlLimits;
  /** What the text has, to follow "the text has": `more than 20,000 keys and list items, the most a TML text may have`. */
  message: string;
}

/** A text read by `readBoundedYaml`. */
export interface BoundedYaml {
  /** The document; an empty one (`contents` null, no errors) when `exceeded`, so a reader does no more work. */
  doc: Document;
  /** Line starts of what was read (empty when the text was over `chars`). */
  lines: LineCounter;
  /** Set when the text is over a limit. */
  exceeded?: YamlLimitExceeded;
}

/**
 * Reads `text` as YAML (JSON included) with positions (`keepSourceTokens`, `lineCounter`), within
 * `limits`. Never throws: syntax errors and duplicate keys are in `doc.errors`; a limit gone over is in
 * `exceeded`, with an empty document. Time linear in `text.length`.
 */
export function readBoundedYaml(text: string, limits: YamlLimits = TML_LIMITS): BoundedYaml {
  const lines = new LineCounter();
  const most = (limit: keyof YamlLimits): string => limits[limit].toLocaleString('en-US');
  const over = (limit: keyof YamlLimits, message: string): BoundedYaml => ({ doc: new Document(), lines, exceeded: { limit, message } });
  if (text.length > limits.chars) return over('chars', `${text.length.toLocaleString('en-US')} characters, more than the ${most('chars')} a TML text may have`);
  const deep = `collections nested more than ${most('depth')} deep, the most a TML text may have`;
  let read: { doc: Document; counted?: 'entries' | 'aliases' };
  try {
    read = compose(text, lines, limits);
  } catch (e) {
    // the package's composer recurses per level; the walk below refuses deep documents, this is the backstop
    if (e instanceof RangeError) return over('depth', deep);
    throw e;
  }
  if (read.counted === 'entries') return over('entries', `more than ${most('entries')} keys and list items, the most a TML text may have`);
  if (read.counted === 'aliases') return over('aliases', `more than ${most('aliases')} aliases (*name), the most a TML text may have`);
  const { doc } = read;
  return walk(doc, limits.depth, limits.errors) ? { doc, lines } : over('depth', deep);
}

/**
 * The package's `parseDocument` (yaml 2.x `public-api.ts`: a `Parser` into a `Composer`, the first
 * document kept, a second one a `MULTIPLE_DOCS` error), with no duplicate-key check of its own and
 * without `prettyErrors` (which copied the error's whole line for each error: quadratic on a one-line
 * text of errors), keeping the first `maxErrors` errors and making no other, and composing no further
 * after the parser's error token past them (each error is an `Error`
 * with its stack: 1 MB of `]` made a million of them, for seconds). The composer's `onError` is wrapped;
 * should a version of the package not have it, all errors are kept (the property test would say so).
 * The text is lexed once: each lexeme is counted (`limits.entries`, `limits.aliases`) and handed to the
 * parser (`Parser.next`, what `Parser.parse` does with its own lexer); at a limit the reading stops and
 * `counted` names it (the document is then of no use).
 */
function compose(text: string, lines: LineCounter, limits: YamlLimits): { doc: Document; counted?: 'entries' | 'aliases' } {
  const maxErrors = limits.errors;
  const composer = new Composer({ uniqueKeys: false, keepSourceTokens: true });
  const hook = composer as unknown as { onError?: (source: unknown, code: unknown, message: unknown, warning?: boolean) => void };
  const report = hook.onError;
  let errors = 0;
  if (typeof report === 'function') {
    hook.onError = (source, code, message, warning) => {
      if (++errors <= maxErrors) report(source, code, message, warning);
    };
  }
  // the parser's top-level error tokens become errors without `onError` (composer.ts `next`): past the
  // limit the rest of the text is not composed
  let counted: 'entries' | 'aliases' | undefined;
  let entries = 0;
  let aliases = 0;
  let stopped = false;
  function* checked(from: Iterable<Token>): Generator<Token> {
    for (const token of from) {
      if ((token.type === 'error' || token.type === 'doc-end') && ++errors > maxErrors) return void (stopped = true);
      yield token;
    }
  }
  function* tokens(): Generator<Token> {
    const parser = new Parser(lines.addNewLine);
    lines.addNewLine(0);
    for (const lexeme of new Lexer().lex(text)) {
      const c = lexeme.charCodeAt(0);
      // ':' '?' ',' '-' stand alone as indicator tokens; '*' starts an alias
      if (lexeme.length === 1 && (c === 58 || c === 63 || c === 44 || c === 45)) {
        if (++entries > limits.entries) return void (counted = 'entries');
      } else if (c === 42 && ++aliases > limits.aliases) return void (counted = 'aliases');
      yield* checked(parser.next(lexeme));
      if (stopped) return;
    }
    yield* checked(parser.end());
  }
  let doc: Document | undefined;
  for (const next of composer.compose(tokens(), true, text.length)) {
    if (!doc) doc = next;
    else {
      doc.errors.push(new YAMLParseError(next.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
      break;
    }
  }
  return { doc: doc ?? new Document(), ...(counted ? { counted } : {}) };
}

/**
 * Walks `doc` with its own stack (no recursion): adds a `DUPLICATE_KEY` error for each key equal to an
 * earlier scalar key of its mapping (the package's rule: equal `value`s; other keys only when the same
 * node), while `doc.errors` holds fewer than `maxErrors`; false when a collection is nested deeper than
 * `depth` (the walk stops there).
 */
function walk(doc: Document, depth: number, maxErrors: number): boolean {
  const stack: { node: Node; level: number }[] = [];
  if (isCollection(doc.contents)) stack.push({ node: doc.contents, level: 1 });
  while (stack.length) {
    const { node, level } = stack.pop()!;
    if (level > depth) return false;
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = isNode(pair.key) ? pair.key : null;
        const value = isScalar(key) ? key.value : key;
        if (seen.has(value) && !Number.isNaN(value)) {
          const at = key?.range?.[0] ?? 0;
          if (doc.errors.length < maxErrors) doc.errors.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
        } else seen.add(value);
        if (isCollection(key)) stack.push({ node: key, level: level + 1 });
        if (isCollection(pair.value)) stack.push({ node: pair.value, level: level + 1 });
      }
    } else if (isCollection(node)) {
      for (const item of node.items) if (isCollection(item)) stack.push({ node: item, level: level + 1 });
    }
  }
  return true;
}
