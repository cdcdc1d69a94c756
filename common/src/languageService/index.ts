/**
 * Public API of the pure TSQ language service (common/src/languageService): the factory, the parser and lexer
 * (the emulator's searchdata uses `parseQuery`), the lossless syntax tree and its reparse, the keyword catalogue, the diagnostic codes and the AST
 * and interface types.
 */
export * from '../language/ast';
export * from './types';
export * as diagnosticCodes from '../language/diagnosticCodes';
export { getLanguageService } from './languageService';
export { parseDocument, parseQuery, parseTokens, tokenAt, queryAt, clauseAt, dataSourceAt, SyntaxDocument, type SyntaxNode } from '../language/parser';
export { reparseDocument } from '../language/incremental';
export { NODE_KINDS, TREE_TOKEN_KINDS, PART, GreenBuffer, GreenPart, type NodeKind, type TreeTokenKind, type PartKind } from '../language/tree';
export { tokenize, type Token, type TokenKind } from '../language/lexer';
export {
  KEYWORDS, findKeyword, findDateBucket, DATE_BUCKETS, AGGREGATIONS, TEXT_OPERATORS, COMPARISON_OPERATORS, RANGE_OPERATORS, DATE_UNITS,
  type KeywordInfo, type KeywordCategory,
} from '../language/keywords';
export { SEMANTIC_TOKEN_LEGEND } from './semanticTokens';
export { closest, editDistance, type UnknownColumnData } from './validation';
