// `npm run faults [-- --faults N] [--seed S] [--quiet] [--help]`: the fault-injection harness of the load path (harness.ts).
// Prints the faults injected per kind and the lost, duplicated and fabricated rows; exits 1 on any.
import { parseArgs } from 'node:util';
import { formatReport, reportIsClean, runFaults } from './harness';

async function main(): Promise<void> {
  const usage = 'usage: npm run faults -- [--faults N] [--seed S] [--quiet] [--help]';
  let values;
  try {
    ({ values } = parseArgs({ options: { faults: { type: 'string' }, seed: { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    console.error(`faults: ${(e as Error).message}\n${usage}`);
    process.exit(2);
  }
  const faults = values.faults === undefined ? 50 : Number(values.faults);
  const seed = values.seed === undefined ? Date.now() % 1e9 : Number(values.seed);
  if (!Number.isInteger(faults) || faults < 1 || !Number.isInteger(seed)) {
    console.error(usage);
    process.exit(2);
  }
  // --help: the arguments are valid (checked above); say how to use them and run nothing
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  console.log(`fault injection: ${faults} faults, seed ${seed}`);
  const report = await runFaults({ faults, seed, log: values.quiet ? undefined : (l) => console.log(l) });
  console.log(formatReport(report));
  process.exit(reportIsClean(report) ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(`faults: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
