/**
 * The kinds of TML file TSQ reads as documents, declared once: each kind's file suffix, the VS Code
 * language it is (package.json `contributes.languages`, checked against this by
 * test/unit/tml-kinds.test.ts) and its title. The language server and `tsq check` route a document by
 * its suffix (`tmlKindOfUri`, then common/src/tml/tmlService.ts), the client's document selector lists
 * `TML_LANGUAGE_IDS`. Sources: docs.thoughtspot.com cloud/latest/tml (one file per object, named
 * `<name>.<type>.tml`), tml-answers, tml-liveboards, tml-worksheets, tml-models, tml-tables (docs/service-interface.md §11).
 *
 * Pure and light (no YAML, no language service): the client imports it.
 */
import { keysOf } from '../guards';

/** Each TML kind: `suffix` (lower case, matched in any case), `languageId` (package.json) and `title`. */
export const TML_KINDS = {
  answer: { suffix: '.answer.tml', languageId: 'tsq-answer-tml', title: 'Answer TML' },
  liveboard: { suffix: '.liveboard.tml', languageId: 'tsq-liveboard-tml', title: 'Liveboard TML' },
  worksheet: { suffix: '.worksheet.tml', languageId: 'tsq-worksheet-tml', title: 'Worksheet TML' },
  model: { suffix: '.model.tml', languageId: 'tsq-model-tml', title: 'Model TML' },
  table: { suffix: '.table.tml', languageId: 'tsq-table-tml', title: 'Table TML' },
} as const;

/** A TML kind TSQ reads: `answer`, `liveboard`, `worksheet`, `model` or `table`. */
export type TmlKind = keyof typeof TML_KINDS;

/** The TML kinds, in the order of `TML_KINDS`. */
export const TML_KIND_NAMES: TmlKind[] = keysOf(TML_KINDS);

/** The VS Code language ids of the TML kinds (the client's document selector adds them to `tsq`). */
export const TML_LANGUAGE_IDS = TML_KIND_NAMES.map((k) => TML_KINDS[k].languageId);

/**
 * The TML kind of a URI or path by its suffix, in any case (`file:///a/B.Liveboard.TML` is a liveboard;
 * a query or fragment is ignored), or undefined for another file (a `.tsq` file).
 */
export function tmlKindOfUri(uri: string): TmlKind | undefined {
  const path = (uri.split(/[?#]/)[0] ?? '').toLowerCase();
  return TML_KIND_NAMES.find((k) => path.endsWith(TML_KINDS[k].suffix));
}
