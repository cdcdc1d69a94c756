/**
 * `tsq`: the command line of TSQ, for pipelines, cron jobs and other editors. Built on the shared core
 * (common/src: the service client, the load pipeline, results formatting, the query language) and the
 * pure language service (common/src/languageService). The commands: `buildProgram`.
 *
 * Answers go to stdout; progress, warnings and errors to stderr. Exit codes: exitCodes.ts.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConnectionError, type AnalyticsServiceClient } from '../../common/src/api';
import { runNodeServer } from '../../server/src/nodeServer';
import { runCheckCommand } from './check';
import { connect, connectionFlags, fileSettings, withConnectionOptions, type Connected } from './connect';
import { noteCycleHasNoOrg, runBadRecordsCommand, runStatusCommand } from './cycles';
import { runExportCommand } from './export';
import { EXIT_CODE_HELP, ExitCode, exitCodeOf, UsageError, type ExitCodeValue } from './exitCodes';
import { INPUT_TABLE_DIFFERENCES } from '../../common/src/load/inputTable';
import { runLoadCommand } from './load';
import { runMcpCommand } from './mcp';
import { LIST_FORMATS, OBJECT_CATEGORIES, OBJECT_TYPES, runObjectsCommand } from './objects';
import { QUERY_FORMATS, runQueryCommand } from './query';
import { runQuerySqlCommand } from './sql';
import { loadConnections, type ConnectionFile, type ConnectionFlags } from '../../common/src/connectionConfig';
import { runTrustCommand } from './trust';
import { terminalSafe } from '../../common/src/terminalText';
import { info } from './output';
import { progressMode } from './progress';
import { choiceOf, choices, count, flag, given, oneOf, readOptions, text, texts } from './optionValues';
import { DIAGNOSTIC_FORMATS } from './diagnosticFormats';
import { TML_KIND_NAMES, TML_KINDS } from '../../common/src/tml/kinds';
import { runTmlImportAsync } from './tmlAsyncImport';
import { PRINCIPAL_TML_TYPES, runTmlExport, runTmlImport, runTmlValidate, TML_EXPORT_TYPES } from './tml';
import { IMPACT_FORMATS, runImpactCommand } from './impact';
import { runOrgsCommand } from './orgs';
import { errnoCode } from '../../common/src/guards';

declare const TSQ_VERSION: string | undefined;

/** The choices of `tsq tml import --policy`. */
const IMPORT_POLICIES = choices('partial', 'all-or-none');

/** The file suffixes `tsq check` reads as TML, for its help (common/src/tml/kinds.ts). */
const TML_SUFFIXES = TML_KIND_NAMES.map((k) => TML_KINDS[k].suffix).join(', ');

/** The help of `--no-progress` (cli/src/progress.ts decides bar or lines). */
const NO_PROGRESS = 'plain progress lines on stderr instead of a bar (also when stderr is no terminal, or CI is set)';

/** Ctrl-C: the first aborts what runs (a load before its commit is aborted); the second exits at once. */
const interrupt = new AbortController();

function installInterrupt(): void {
  let count = 0;
  process.on('SIGINT', () => {
    count++;
    if (count === 1) {
      interrupt.abort(new Error('interrupted (Ctrl-C)'));
      return;
    }
    // a progress bar hides the cursor while it runs: show it again before leaving (tsq's own control sequence, no outside text)
    // eslint-disable-next-line no-restricted-syntax
    process.stderr.write(`${process.stderr.isTTY ? '\x1b[?25h' : ''}\ntsq: interrupted again; exiting now.\n`);
    process.exit(ExitCode.INTERRUPTED);
  });
}

const integer = (what: string, min: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`${what} must be a whole number ≥ ${min}.`);
  return n;
};

/** Runs a command that needs the service: connects, runs, logs out; maps failures to exit codes. */
async function withService(flags: ConnectionFlags, run: (c: Connected) => Promise<ExitCodeValue | void>): Promise<void> {
  const connected = connect(flags);
  try {
    const code = await run(connected);
    process.exitCode = code ?? ExitCode.OK;
  } finally {
    await connected.client.close();
  }
}

/** Adds `tsq check`: diagnostics of .tsq files against the live catalog (or the syntax only, --offline). */
function addCheckCommand(program: Command): void {
  withConnectionOptions(
    program
      .command('check')
      .description(`check .tsq files and TML files (${TML_SUFFIXES}: each search_query) against the live catalog; prints file:line:col: severity: message [code]`)
      .argument('<files...>', `.tsq, ${TML_SUFFIXES} files`)
      .option('-d, --datasource <name>', 'data source of queries that have no @datasource')
      .option('--disable <codes...>', 'diagnostic codes to silence, e.g. tsq.unknownColumn')
      .option('--offline', 'check the syntax only, without a connection')
      .addOption(new Option('--format <format>', 'text (file:line:col), github (Actions annotations) or sarif (SARIF 2.1.0)').choices([...DIAGNOSTIC_FORMATS]).default('text')),
  )
    .addHelpText('after', `\nExit code 1 when any file has an error; warnings alone exit 0.\n${EXIT_CODE_HELP}`)
    .action(async (files: string[], raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ datasource: text(o('datasource')), disable: texts(o('disable')), offline: flag(o('offline')), format: oneOf(o('format'), DIAGNOSTIC_FORMATS, '--format'), connection: connectionFlags(o) }));
      const settings = (fromFiles: ReturnType<typeof fileSettings>) => ({
        defaultDataSource: opts.datasource ?? fromFiles.defaultDataSource,
        disabledDiagnostics: opts.disable ?? fromFiles.disabledDiagnostics,
      });
      const exitFor = (errors: number): ExitCodeValue => (errors ? ExitCode.CHECK_ERRORS : ExitCode.OK);
      if (opts.offline) {
        // settings only (defaultDataSource, disabled diagnostics): a connection is not needed, nor its errors
        let files0: ConnectionFile[];
        try {
          files0 = loadConnections(opts.connection).files;
        } catch {
          files0 = [];
        }
        process.exitCode = exitFor((await runCheckCommand(undefined, files, settings(fileSettings(files0)), opts.format)).errors);
        return;
      }
      await withService(opts.connection, async ({ client, files: configFiles }) => {
        return exitFor((await runCheckCommand(client, files, settings(fileSettings(configFiles)), opts.format)).errors);
      });
    });
}

/**
 * Adds `tsq impact` (cli/src/impact.ts): the uses of a column of a data source in the files of folders,
 * and with `--url` or `--connection` the service's dependents of the data source; exit 1 when any.
 */
function addImpactCommand(program: Command): void {
  withConnectionOptions(
    program
      .command('impact')
      .description('list every use of a column of a data source in the .tsq, answer and liveboard TML files under folders, and with --url or --connection the objects on the service that depend on the data source (a CI gate before a model change)')
      .argument('<column>', 'the column name, without brackets')
      .requiredOption('--data-source <name>', 'the data source (model, worksheet, table) of the column, by name or GUID')
      .option('--dir <folders...>', 'the folders to look in', ['.'])
      .addOption(new Option('--format <format>', 'text (file:line:col), json, or github (Actions warnings)').choices([...IMPACT_FORMATS]).default('text')),
  )
    .addHelpText('after', `\nWithout --url or --connection only the files are read (no connection is made).\nExit code 1 when anything uses the column (or, with a connection, depends on its data source), 0 when nothing does.\n${EXIT_CODE_HELP}`)
    .action(async (column: string, raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ dataSource: given(text(o('dataSource')), '--data-source'), dir: given(texts(o('dir')), '--dir'), format: oneOf(o('format'), IMPACT_FORMATS, '--format'), connection: connectionFlags(o) }));
      const run = async (client?: AnalyticsServiceClient): Promise<ExitCodeValue> =>
        (await runImpactCommand(column, opts.dataSource, opts.dir, opts.format, client)) ? ExitCode.IMPACT_FOUND : ExitCode.OK;
      if (opts.connection.url === undefined && opts.connection.connection === undefined) process.exitCode = await run();
      else await withService(opts.connection, ({ client }) => run(client));
    });
}

/** `tsq tml export|validate|import` (cli/src/tml.ts). */
function addTmlCommands(program: Command): void {
  const tml = program.command('tml').description('Answers as TML files: export them, validate them (locally, then on the service), import them');
  withConnectionOptions(
    tml
      .command('export')
      .description('write the TML of objects to files (<name>.<type>.tml)')
      .argument('[objects...]', 'GUIDs, or names with --type')
      .addOption(new Option('--type <type>', 'the type of the objects named').choices([...Object.keys(TML_EXPORT_TYPES), ...Object.keys(PRINCIPAL_TML_TYPES)]))
      .option('--all', 'every object of --type (default answer); users and groups in pages of metadata/tml/export/batch where the service has it')
      .option('--fqn', 'add the GUIDs of the data sources (export_fqn)')
      .option('-o, --out <dir>', 'folder to write to', '.')
      .option('--no-progress', NO_PROGRESS),
  )
    .addHelpText('after', `\n--type user|group --all exports every user or group of the Org through metadata/tml/export/batch (REST API v2, 10.1.0.cl or later), 50 a page; a service without it is exported by GUID through metadata/tml/export (said on stderr).\nEvery object gets its own file (a taken name gets " (2)", " (3)"…; said on stderr). An object that cannot be exported or written is said on stderr and the others are written (exit 1).\nCtrl-C stops after the batch in flight: its files are written, the rest are not (exit 130).\n${EXIT_CODE_HELP}`)
    .action(async (objects: string[], raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ type: text(o('type')), all: flag(o('all')), out: given(text(o('out')), '--out'), fqn: flag(o('fqn')), progress: flag(o('progress')), connection: connectionFlags(o) }));
      await withService(opts.connection, async ({ client }) => {
        const { failed } = await runTmlExport(client, objects, { type: opts.type, all: opts.all, out: opts.out, fqn: opts.fqn, signal: interrupt.signal, progress: progressMode(opts) });
        return failed ? ExitCode.CHECK_ERRORS : ExitCode.OK;
      });
    });
  withConnectionOptions(
    tml
      .command('validate')
      .description('check *.answer.tml and *.liveboard.tml files: YAML, the shape, each search_query against the live catalog, then the service\'s VALIDATE_ONLY (batches of 50)')
      .argument('<files...>', '.answer.tml or .liveboard.tml files')
      .addOption(new Option('--format <format>', 'text (file:line:col), github (Actions annotations) or sarif (SARIF 2.1.0)').choices([...DIAGNOSTIC_FORMATS]).default('text'))
      .option('--no-progress', NO_PROGRESS),
  )
    .addHelpText('after', `\nExit code 1 when any file has an error; warnings alone exit 0. Ctrl-C stops after the batch in flight (exit 130, nothing on stdout).\n${EXIT_CODE_HELP}`)
    .action(async (files: string[], raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ format: oneOf(o('format'), DIAGNOSTIC_FORMATS, '--format'), progress: flag(o('progress')), connection: connectionFlags(o) }));
      await withService(opts.connection, async ({ client }) => ((await runTmlValidate(client, files, { format: opts.format, signal: interrupt.signal, progress: progressMode(opts) })) ? ExitCode.CHECK_ERRORS : ExitCode.OK));
    });
  withConnectionOptions(
    tml
      .command('import')
      .description('import *.answer.tml files: a guid updates that answer, none creates one')
      .argument('<files...>', '.answer.tml files')
      .addOption(new Option('--policy <policy>', 'partial: import every file that validates; all-or-none: nothing when one fails').choices(IMPORT_POLICIES).default('partial'))
      .option('--async', 'import as one task of the service (metadata/tml/async/import, REST API v2) and poll its status with progress')
      .option('--no-progress', NO_PROGRESS),
  )
    .addHelpText('after', `\nWith --async the files go as one task; tsq polls metadata/tml/async/status until it completes. Ctrl-C stops the polling at once and names the task, which goes on on the service (exit 130).\nExit code 1 when any file was not imported.\n${EXIT_CODE_HELP}`)
    .action(async (files: string[], raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ policy: oneOf(o('policy'), IMPORT_POLICIES, '--policy'), async: flag(o('async')), progress: flag(o('progress')), connection: connectionFlags(o) }));
      const policy = opts.policy === 'all-or-none' ? 'ALL_OR_NONE' : 'PARTIAL';
      const progress = progressMode(opts);
      await withService(opts.connection, async ({ client }) => ((await (opts.async ? runTmlImportAsync(client, files, policy, { signal: interrupt.signal, progress }) : runTmlImport(client, files, policy, interrupt.signal))) ? ExitCode.CHECK_ERRORS : ExitCode.OK));
    });
}

/** `tsq query FILE`: runs a .tsq file's queries and prints the answers (cli/src/query.ts). */
function addQueryCommand(program: Command): void {
  withConnectionOptions(
    program
      .command('query')
      .description('run the queries of a .tsq file and print the answers (every page)')
      .argument('<file>', '.tsq file; each query runs on the data source of its @datasource line')
      .option('-q, --query <n>', 'run only the n-th query of the file (1-based)', integer('--query', 1))
      .option('--all', 'run every query of the file (the default)')
      .addOption(new Option('-f, --format <format>', 'output format').choices([...QUERY_FORMATS]).default('table'))
      .option('-o, --out <file>', 'write the answer to a file instead of stdout')
      .option('-d, --datasource <name>', 'data source (name or GUID) of queries that have no @datasource')
      .option('--page-size <rows>', 'rows per searchdata page', integer('--page-size', 1), 10_000)
      .option('--sql', "print the SQL the service runs behind the file's saved Answer (its @answer 'GUID' line) instead of running the queries"),
  )
    .addHelpText('after', EXIT_CODE_HELP)
    .action(async (file: string, raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ query: count(o('query')), all: flag(o('all')), format: oneOf(o('format'), QUERY_FORMATS, '--format'), out: text(o('out')), datasource: text(o('datasource')), pageSize: given(count(o('pageSize')), '--page-size'), sql: flag(o('sql')), connection: connectionFlags(o) }));
      if (opts.all && opts.query !== undefined) throw new CommanderError(ExitCode.USAGE, 'tsq.usage', 'error: give --query N or --all, not both');
      if (opts.sql) {
        await withService(opts.connection, async ({ client }) => void (await runQuerySqlCommand(client, file, interrupt.signal)));
        return;
      }
      await withService(opts.connection, async ({ client, files }) => {
        await runQueryCommand(client, file, {
          query: opts.query,
          format: opts.format,
          out: opts.out,
          datasource: opts.datasource ?? fileSettings(files).defaultDataSource,
          pageSize: opts.pageSize,
          signal: interrupt.signal,
        });
      });
    });
}

/** `tsq load FILE`: a CSV file into an existing table in one load cycle (cli/src/load.ts). */
function addLoadCommand(program: Command): void {
  withConnectionOptions(
    program
      .command('load')
      .description('load a CSV file into an existing table, in one load cycle (all good rows, or none), or into an input table')
      .argument('<file>', 'CSV file')
      .option('-t, --table <db.schema.table>', 'the target table; the file is sniffed (or its saved <file>.load.json reused for that table)')
      .option('--definition <file>', 'a saved load definition (.load.json) to use')
      .option('--replace', 'empty the table first (load_options.empty_target); also confirms a definition that does, and a load into an existing input table (which replaces its rows)')
      .option('--max-ignored <n>', 'most bad rows that may be ignored before the load fails (max_ignored_rows; default 0)', integer('--max-ignored', 0))
      .option('--chunk-size <bytes>', 'bytes per uploaded chunk (default 16 MiB)', integer('--chunk-size', 65_536))
      .option('--input-table <name|guid>', 'load into this input table (REST API v2; the default path where the service has no data-load API, as on ThoughtSpot Cloud)')
      .option('--create-input-table', 'create the input table named by --table first, on --model, with --key columns')
      .option('--model <model>', 'the model (worksheet) a new input table is linked to (GUID or name)')
      .option('--key <columns...>', "the model's columns a new input table references (its key columns); the file must have them")
      .option('--json', 'print the result as JSON on stdout')
      .option('--no-progress', NO_PROGRESS),
  )
    .addHelpText('after', `\nCtrl-C before the commit aborts the load cycle: the table is unchanged.\n\nInput tables: ${INPUT_TABLE_DIFFERENCES}\n${EXIT_CODE_HELP}`)
    .action(async (file: string, raw: unknown) => {
      const opts = readOptions(raw, (o) => ({
        table: text(o('table')),
        definition: text(o('definition')),
        replace: flag(o('replace')),
        maxIgnored: count(o('maxIgnored')),
        chunkSize: count(o('chunkSize')),
        json: flag(o('json')),
        progress: flag(o('progress')),
        inputTable: text(o('inputTable')),
        createInputTable: inputTableToCreate({ createInputTable: flag(o('createInputTable')), model: text(o('model')), key: texts(o('key')) }),
        connection: connectionFlags(o),
      }));
      await withService(opts.connection, async ({ client }) => {
        const { connection: _, progress, ...load } = opts;
        await runLoadCommand(client, file, { ...load, signal: interrupt.signal, progress: progressMode({ progress }) });
      });
    });
}

/** `--create-input-table --model M --key COL…` as `LoadOptions.createInputTable`. @throws UsageError when --model or --key is missing */
function inputTableToCreate(opts: { createInputTable: boolean; model?: string; key?: string[] }): { model: string; keys: string[] } | undefined {
  if (!opts.createInputTable) {
    if (opts.model !== undefined || opts.key !== undefined) throw new UsageError('--model and --key are for --create-input-table.');
    return undefined;
  }
  const keys = opts.key ?? [];
  if (opts.model === undefined || keys.length === 0) throw new UsageError('--create-input-table needs --model MODEL and --key COLUMN… (the model\'s columns the input table references).');
  return { model: opts.model, keys };
}

/** `tsq status`, `bad-records` (cli/src/cycles.ts), `export`, `objects` and `orgs`: the commands that read one thing of the service and print it. */
function addServiceCommands(program: Command): void {
  withConnectionOptions(program.command('status').description('show the status of a load cycle').argument('<cycle-id>', 'the load cycle id').option('--json', 'print the status as the service sent it'))
    .addHelpText('after', EXIT_CODE_HELP)
    .action(async (cycleId: string, raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ json: flag(o('json')), connection: connectionFlags(o) }));
      noteCycleHasNoOrg(opts.connection.org);
      await withService(opts.connection, ({ client }) => runStatusCommand(client, cycleId, { json: opts.json, signal: interrupt.signal }));
    });

  withConnectionOptions(program.command('bad-records').description('print the bad records file of a load cycle (the rows it ignored)').argument('<cycle-id>', 'the load cycle id').option('-o, --out <file>', 'write to a file instead of stdout'))
    .addHelpText('after', EXIT_CODE_HELP)
    .action(async (cycleId: string, raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ out: text(o('out')), connection: connectionFlags(o) }));
      noteCycleHasNoOrg(opts.connection.org);
      await withService(opts.connection, ({ client }) => runBadRecordsCommand(client, cycleId, { out: opts.out, signal: interrupt.signal }));
    });

  withConnectionOptions(
    program
      .command('export')
      .description("export an answer's report, or one liveboard visualization's, as CSV (REST API v2 report/answer, report/liveboard)")
      .argument('<object>', 'the answer (or, with --liveboard, the liveboard): GUID or name')
      .option('--liveboard', 'the object is a liveboard')
      .option('--viz <visualization>', "the liveboard's visualization (GUID or name), when it has several")
      .option('-o, --out <file>', 'write to a file instead of stdout'),
  )
    .addHelpText('after', EXIT_CODE_HELP)
    .action(async (object: string, raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ liveboard: flag(o('liveboard')), viz: text(o('viz')), out: text(o('out')), connection: connectionFlags(o) }));
      await withService(opts.connection, ({ client }) => runExportCommand(client, object, { liveboard: opts.liveboard, viz: opts.viz, out: opts.out, signal: interrupt.signal }));
    });

  withConnectionOptions(
    program
      .command('objects')
      .description('list object headers (data sources by default)')
      .addOption(new Option('--type <type>', 'metadata type').choices(OBJECT_TYPES).default('LOGICAL_TABLE'))
      .option('--subtype <subtypes...>', 'LOGICAL_TABLE subtypes, e.g. WORKSHEET ONE_TO_ONE_LOGICAL')
      .option('-p, --pattern <pattern>', 'name pattern; % is the wildcard (case-insensitive)')
      .addOption(new Option('--category <category>', 'which objects').choices(OBJECT_CATEGORIES))
      .addOption(new Option('-f, --format <format>', 'output format').choices(LIST_FORMATS).default('table')),
  )
    .addHelpText('after', EXIT_CODE_HELP)
    .action(async (raw: unknown) => {
      const opts = readOptions(raw, (o) => ({
        type: oneOf(o('type'), OBJECT_TYPES, '--type'),
        subtype: texts(o('subtype')),
        pattern: text(o('pattern')),
        category: choiceOf(o('category'), OBJECT_CATEGORIES),
        format: oneOf(o('format'), LIST_FORMATS, '--format'),
        connection: connectionFlags(o),
      }));
      await withService(opts.connection, async ({ client }) => {
        const { connection: _, ...list } = opts;
        await runObjectsCommand(client, { ...list, signal: interrupt.signal });
      });
    });

  withConnectionOptions(program.command('orgs').description('list the Orgs you may run in (the current one marked *); --org on any command chooses one'))
    .addOption(new Option('-f, --format <format>', 'output format').choices(LIST_FORMATS).default('table'))
    .addHelpText('after', EXIT_CODE_HELP)
    .action(async (raw: unknown) => {
      const opts = readOptions(raw, (o) => ({ format: oneOf(o('format'), LIST_FORMATS, '--format'), connection: connectionFlags(o) }));
      await withService(opts.connection, async ({ client }) => {
        await runOrgsCommand(client, { format: opts.format, signal: interrupt.signal });
      });
    });
}

/**
 * Builds the program (exported for the help test):
 *
 *   tsq query FILE.tsq [--query N | --all] [--format csv|json|table] [--out FILE] [--sql]   (--sql: sql.ts)
 *   tsq load FILE.csv [--table db.schema.table] [--definition FILE.load.json] [--replace] [--max-ignored N]
 *            [--input-table NAME | --create-input-table --model M --key COL…]
 *   tsq status CYCLE_ID · tsq bad-records CYCLE_ID
 *   tsq objects [--type T] [--subtype S…] [--pattern P] [--format table|json]
 *   tsq check FILE.tsq… [--format text|github|sarif]
 *   tsq impact COLUMN --data-source NAME [--dir FOLDER…] [--format text|json|github]   (impact.ts)
 *   tsq tml export|validate|import …   (Answers as TML files: tml.ts)
 *   tsq trust [--revoke | --list]   (approve the project's tsq.json: common/src/trust.ts)
 *   tsq lsp [connection options]   (the language server over stdio, reading the catalog from the service)
 *   tsq mcp [connection options] [--allow-writes] [--root DIR]…   (the agent tools over MCP on stdio: mcp.ts)
 */
export function buildProgram(): Command {
  const program = new Command('tsq')
    .description('TSQ command line: run .tsq queries, load CSV files into tables, check queries against the live catalog.\nConnection: --url and --user, or --connection NAME from tsq.json / ~/.config/tsq/connections.json (the fields of the extension\'s tsq.connections).\nPassword: the TSQ_PASSWORD environment variable, the connection\'s "passwordCommand", or a prompt on a terminal; never a flag.')
    .version(typeof TSQ_VERSION === 'string' ? TSQ_VERSION : '0.0.0-dev')
    .showHelpAfterError('(run tsq --help for usage)')
    .addHelpText('after', EXIT_CODE_HELP)
    .exitOverride()
    // commander's own errors quote the argument it refused (a file name a glob matched): escaped whole, on one line
    .configureOutput({ outputError: (message, write) => write(`${terminalSafe(message.replace(/\n$/, ''))}\n`) });
  addOrgOption(program);

  addQueryCommand(program);
  addLoadCommand(program);

  addServiceCommands(program);

  addCheckCommand(program);
  addImpactCommand(program);
  addTmlCommands(program);

  program
    .command('trust')
    .description("approve this project's tsq.json: its connections may then receive your password or token (an edit of the file asks again)")
    .option('--revoke', 'withdraw the approval')
    .option('--list', 'list the approved project files')
    .addHelpText('after', `\nA tsq.json found in this folder or above it (up to the repository root or your home) comes with the project:\nits connections get no credential until you approve it, and it may never set passwordCommand, caFile,\nrejectUnauthorized, a loadUrl on another host, or redefine a connection of yours. See SECURITY.md.\n${EXIT_CODE_HELP}`)
    .action((raw: unknown) => {
      process.exitCode = runTrustCommand(readOptions(raw, (o) => ({ revoke: flag(o('revoke')), list: flag(o('list')) })));
    });

  withConnectionOptions(
    program
      .command('lsp')
      .description('run the TSQ language server over stdio for any editor; it reads the catalog from the service when the editor does not answer TSQ\'s requests')
      .option('--stdio', 'LSP over stdin/stdout (the default)')
      // editors add their own flags (--clientProcessId=N): the server reads what it knows
      .allowUnknownOption()
      .allowExcessArguments(),
  ).action(() => {
    // the language server reads its flags from the raw arguments (and vscode-languageserver looks for --stdio there)
    const args = process.argv.slice(process.argv.indexOf('lsp') + 1);
    // `tsq --org X lsp`: the program's --org reaches the server too
    const org = text(program.opts().org);
    if (org !== undefined && !args.some((a) => a === '--org' || a.startsWith('--org='))) args.push('--org', org);
    if (!args.includes('--stdio')) process.argv.push('--stdio');
    runNodeServer(['--stdio', ...args], { allowDefaultConnection: true });
  });

  withConnectionOptions(
    program
      .command('mcp')
      .description('run the agent tools (list, describe, check and run queries) as an MCP server over stdio, for agent mode in VS Code, Claude Code or Cursor')
      .option('--allow-writes', 'also offer load_csv, which loads a CSV file into a table')
      .option('--root <dir>', 'a folder load_csv may read files from (repeatable; default: the working folder unless it is /, the home folder or above it; the MCP client\'s roots count too)', (v: string, prev: string[] = []) => [...prev, v]),
  )
    .addHelpText('after', `\nThe connection and its approval are those of every command: a project's tsq.json must be approved with tsq trust first\n(the server refuses to start otherwise, exit 3). The password comes from TSQ_PASSWORD or "passwordCommand", never a prompt.\n${EXIT_CODE_HELP}`)
    .action(async (raw: unknown) => {
      await runMcpCommand(readOptions(raw, (o) => ({ allowWrites: flag(o('allowWrites')), root: texts(o('root')), connection: connectionFlags(o) })));
    });

  return program;
}

/**
 * `--org ID|NAME` before any command (`tsq --org Finance query …`), beside the `--org` every service
 * command takes (connect.ts): the command's own wins; else the program's is handed to the command.
 */
function addOrgOption(program: Command): void {
  program.option('--org <org>', 'the Org every command runs in, by id or name (as each command\'s --org)');
  program.hook('preAction', (_program, action) => {
    const org = text(program.opts().org);
    if (org !== undefined && action.getOptionValue('org') === undefined && action.options.some((o) => o.long === '--org')) action.setOptionValue('org', org);
  });
}

/** Runs tsq with `argv` (process.argv) and sets the exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  // a closed pipe (`tsq query … | head`) ends the run quietly, as other command-line tools do
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(ExitCode.OK);
  });
  if (argv[2] !== 'lsp') installInterrupt();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      if (e.code === 'tsq.usage') info(e.message);
      process.exitCode = ok ? ExitCode.OK : ExitCode.USAGE;
      return;
    }
    if (errnoCode(e) === 'EPIPE') return;
    const code = exitCodeOf(e);
    const interrupted = code === ExitCode.INTERRUPTED || (interrupt.signal.aborted && e instanceof ConnectionError);
    const message = e instanceof Error ? e.message : String(e);
    // an error's message holds file names and the service's text: escaped whole, on one line
    info(`tsq: ${interrupted && !/cancel|abort|interrupt/i.test(message) ? `interrupted (Ctrl-C): ${message}` : message}`);
    // the stack line by line, its message (outside text) escaped on one line first
    if (code === ExitCode.INTERNAL && e instanceof Error && process.env.TSQ_DEBUG) for (const line of (e.stack ?? '').replace(e.message, terminalSafe(e.message)).split('\n')) info(line);
    process.exitCode = interrupted ? ExitCode.INTERRUPTED : code;
  }
}

// run when started as a program (dist/cli.js), not when a test imports buildProgram
if (require.main === module) void main(process.argv);
