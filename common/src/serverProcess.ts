/**
 * Node options the language server process is started with (client/src/languageClient.ts; the protocol
 * tests and benchmarks start dist/server.js with them too). A young generation of 32 MB semi-spaces
 * (V8's default is at most 16 MB) lets the AST of a document parsed on a keystroke die before it is
 * copied out of the young generation: ~1 MB of queries is ~190,000 AST objects, the garbage collector
 * is about a quarter of a parse's CPU profile with the default size, and the median parse is ~10% faster
 * with this one (test/bench/parse.bench.ts measures both).
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=32'];
