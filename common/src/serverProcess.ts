/**
 * Node options the language server process is started with (client/src/languageClient.ts; the protocol
 * tests and benchmarks start dist/server.js with them too). Young-generation semi-spaces of 32 MB,
 * larger than V8's default, let the AST of a document parsed on a keystroke die young instead of being
 * copied out of the young generation (test/bench/parse.bench.ts measures both sizes).
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=32'];
