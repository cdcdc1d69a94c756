/**
 * Typed readers of commander's parsed options (what an action is handed is unknown here): each command
 * builds one typed options object from its flags with `readOptions` and these, beside the flags it
 * declares (main.ts), so no option is cast and no handler holds a record of unknowns
 * (test/unit/cliOptionValues.test.ts). A value of the wrong kind reads as absent; `oneOf` and `given`, for an
 * option commander always sets (a default, a required option), throw when it is not there.
 */
import { isRecord } from '../../common/src/guards';

/** The value of one parsed option by its commander name (`dataSource` for `--data-source`); undefined when absent. */
export type OptionValue = (name: string) => unknown;

/**
 * A command's typed options object: `build` reads each option with `option(name)` and a reader below,
 * and its result's type is the options' type (`readOptions(raw, (o) => ({ out: text(o('out')) }))`).
 * @param raw what commander hands the action as its options (its `opts()`)
 */
export function readOptions<T>(raw: unknown, build: (option: OptionValue) => T): T {
  return build((name) => (isRecord(raw) ? raw[name] : undefined));
}

/** The choices of a `.choices(…)` option, typed as their union (`choices('csv', 'json')`: `readonly ('csv' | 'json')[]`). */
export function choices<T extends string>(...values: T[]): readonly T[] {
  return values;
}

/** A `<value>` option: the string, or undefined when the flag was not given. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A `<values...>` option: the strings, or undefined when the flag was not given. */
export function texts(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** A boolean flag (`--json`, `--no-progress`): true only when set to true. */
export function flag(value: unknown): boolean {
  return value === true;
}

/** A number option (parsed by an argument parser such as main.ts's `integer`), or undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/**
 * The value of an option commander always sets (a default, or `requiredOption`), read with one of the
 * readers above: `given(text(raw.out), '--out')`. @throws Error when it is missing
 */
export function given<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} has no value.`);
  return value;
}

/** A `.choices(…)` option that may be absent: the choice, or undefined. */
export function choiceOf<T extends string>(value: unknown, choices: readonly T[]): T | undefined {
  return choices.find((c) => c === value);
}

/** A `.choices(…)` option commander always sets (it has a default). @throws Error when it is none of the choices */
export function oneOf<T extends string>(value: unknown, choices: readonly T[], name: string): T {
  const c = choiceOf(value, choices);
  if (c === undefined) throw new Error(`${name} must be one of ${choices.join(', ')}.`);
  return c;
}
