/**
 * The emulator's command line:
 *   node dist/emulator.js [--host 127.0.0.1] [--port 8088] [--load-port N] [--data-dir DIR] [--seed DIR]
 *                         [--demo] [--now ISO-8601] [--delay-searchdata MS[:TEXT]]
 *                         [--cycle-idle-minutes N] [--public-api v1|v2|both] [--no-data-load-api] [--rate-limit N]
 *                         [--trusted-auth-secret S]
 * Prints `Analytics Service emulator listening on http://HOST:PORT` once it accepts requests (and the
 * load port's URL when it has its own). Ctrl-C or SIGTERM shuts it down cleanly.
 */
import { parseArgs } from 'node:util';
import { isLoopback, parseSearchDataDelay, startEmulator } from './app';
import { messageOf } from '../../common/src/guards';

const USAGE = 'usage: emulator [--host 127.0.0.1] [--port 8088] [--load-port N] [--data-dir DIR] [--seed DIR] [--demo] [--now ISO-8601] [--delay-searchdata MS[:TEXT]] [--cycle-idle-minutes N] [--public-api v1|v2|both] [--no-data-load-api] [--rate-limit N] [--trusted-auth-secret S]';

/** Parses a port flag; exits with a message for anything but an integer 0..65535. */
function port(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`--${flag}: not a port number: ${v}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'load-port': { type: 'string' },
        'data-dir': { type: 'string' },
        seed: { type: 'string' },
        demo: { type: 'boolean' },
        now: { type: 'string' },
        // test-only: slow searchdata down (also TSQ_EMULATOR_DELAY_SEARCHDATA), see EmulatorOptions.delaySearchData
        'delay-searchdata': { type: 'string' },
        // minutes an open load cycle may go without a chunk before it expires (default 60)
        'cycle-idle-minutes': { type: 'string' },
        // which public API generations answer (default both; v2: every /tspublic/v1 path is 404)
        'public-api': { type: 'string' },
        // no data-load API, as on ThoughtSpot Cloud (loads go through input tables)
        'no-data-load-api': { type: 'boolean' },
        // requests per second per client address across v1 and v2, then 429 with Retry-After
        'rate-limit': { type: 'string' },
        // enables secret_key in auth/token/full (trusted authentication); also TSQ_EMULATOR_TRUSTED_AUTH_SECRET
        'trusted-auth-secret': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`${messageOf(e)}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  let delaySearchData;
  try {
    delaySearchData = parseSearchDataDelay(values['delay-searchdata'] ?? process.env.TSQ_EMULATOR_DELAY_SEARCHDATA);
  } catch (e) {
    console.error(`${messageOf(e)}\n${USAGE}`);
    process.exit(2);
  }
  const idle = values['cycle-idle-minutes'];
  if (idle !== undefined && !(Number(idle) > 0)) {
    console.error(`--cycle-idle-minutes: expected a number of minutes above 0, got ${idle}\n${USAGE}`);
    process.exit(2);
  }
  const publicApi = values['public-api'] ?? 'both';
  if (publicApi !== 'v1' && publicApi !== 'v2' && publicApi !== 'both') {
    console.error(`--public-api: expected v1, v2 or both, got ${publicApi}\n${USAGE}`);
    process.exit(2);
  }
  const rate = values['rate-limit'];
  if (rate !== undefined && !(Number.isInteger(Number(rate)) && Number(rate) > 0)) {
    console.error(`--rate-limit: expected a whole number of requests per second above 0, got ${rate}\n${USAGE}`);
    process.exit(2);
  }
  const emu = await startEmulator({
    host: values.host,
    port: port('port', values.port),
    loadPort: port('load-port', values['load-port']),
    dataDir: values['data-dir'],
    seed: values.seed,
    demo: values.demo,
    now: values.now,
    delaySearchData,
    cycleIdleMinutes: idle === undefined ? undefined : Number(idle),
    publicApi,
    dataLoadApi: values['no-data-load-api'] !== true,
    rateLimit: rate === undefined ? undefined : Number(rate),
    trustedAuthSecret: values['trusted-auth-secret'] ?? process.env.TSQ_EMULATOR_TRUSTED_AUTH_SECRET,
  });
  console.log(`Analytics Service emulator listening on ${emu.url}`);
  if (values.host && !isLoopback(values.host)) console.error(`emulator: listening on ${values.host}, not loopback: the demo passwords are refused here; set real ones with user/updatepassword from a loopback instance first`);
  if (emu.loadUrl) console.log(`Analytics Service emulator data-load API listening on ${emu.loadUrl}`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    emu.close().then(
      () => process.exit(0),
      (e) => {
        console.error(`emulator: error while shutting down: ${messageOf(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e) => {
  console.error(`emulator: ${messageOf(e)}`);
  process.exit(1);
});
