/**
 * `check_query` on an Answer TML (tools.ts): the whole file checked as `tsq check` and the editor check it
 * (common/src/tml/tmlService.ts `validateTml`: its shape, its `search_query` against the data sources of
 * its `tables` and its own `formulas`, and every `formulas[].expr` by the formula checker), over the
 * agent's catalog (AgentBackend `getDataSources` / `getColumns`).
 */
import type { Diagnostic } from 'vscode-languageserver-types';
import { getLanguageService } from '../languageService/languageService';
import type { CatalogProvider } from '../languageService/types';
import { validateTml } from '../tml/tmlService';
import type { AgentBackend } from './backend';

/** The URI an agent's Answer TML is checked under (its suffix routes it to the Answer TML checker). */
const AGENT_ANSWER_URI = 'untitled:agent-answer.answer.tml';

/**
 * The diagnostics of an Answer TML's text, positions 0-based lines and UTF-16 characters of `text`.
 * @throws the service's error when the catalog cannot be read (a check without it would pass anything)
 */
export async function checkAnswerTml(backend: AgentBackend, text: string, signal?: AbortSignal): Promise<Diagnostic[]> {
  const catalog: CatalogProvider = {
    getDataSources: () => backend.getDataSources(signal),
    getColumns: (ds) => backend.getColumns(ds, signal),
    getColumnValues: async () => [],
  };
  return validateTml(getLanguageService({ catalog }), AGENT_ANSWER_URI, text);
}
