/** A mistake in the command line itself: reported with exit code 2, before anything is opened. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** Whether the whole usage text should follow the message (an unknown command, say). */
    readonly showUsage = false,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export interface FlagSpec {
  /** The flag without its dashes, e.g. "max-points-balance". */
  name: string;
  /** A switch such as --json takes no value; every other flag takes exactly one. */
  kind: "switch" | "value";
  repeatable?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  /** Every value given for each value flag, in order. */
  values: Map<string, string[]>;
  switches: Set<string>;
}

/**
 * Splits a command's arguments into positionals and flags, accepting both `--flag value` and
 * `--flag=value`. Anything the command does not know is refused rather than ignored, because a
 * mistyped option silently ignored would provision an organisation the operator did not ask for.
 */
export function parseArgs(args: readonly string[], flags: readonly FlagSpec[], commandName: string): ParsedArgs {
  const byName = new Map(flags.map((flag) => [flag.name, flag]));
  const parsed: ParsedArgs = { positionals: [], values: new Map(), switches: new Set() };
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const token = args[i] ?? "";
    if (optionsEnded || !token.startsWith("-") || token === "-") {
      parsed.positionals.push(token);
      continue;
    }
    if (token === "--") {
      optionsEnded = true;
      continue;
    }
    if (!token.startsWith("--")) {
      throw new UsageError(`Unknown option ${token} for "${commandName}".`);
    }
    const equals = token.indexOf("=");
    const name = token.slice(2, equals === -1 ? undefined : equals);
    const flag = byName.get(name);
    if (!flag) throw new UsageError(`Unknown option --${name} for "${commandName}".`);
    if (flag.kind === "switch") {
      if (equals !== -1) throw new UsageError(`--${name} takes no value.`);
      parsed.switches.add(name);
      continue;
    }
    let value: string | undefined;
    if (equals !== -1) {
      value = token.slice(equals + 1);
    } else {
      const next = args[i + 1];
      // A following flag is not taken as the value: `--name --json` is a forgotten name.
      if (next !== undefined && !next.startsWith("--")) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === "") throw new UsageError(`--${name} needs a value.`);
    const seen = parsed.values.get(name) ?? [];
    if (seen.length > 0 && !flag.repeatable) throw new UsageError(`--${name} is given more than once.`);
    parsed.values.set(name, [...seen, value]);
  }
  return parsed;
}

/** The single value of a non-repeatable flag, if it was given. */
export function flagValue(parsed: ParsedArgs, name: string): string | undefined {
  return parsed.values.get(name)?.[0];
}

/** Checks the positionals against the names the command expects, e.g. ["ORG_ID"]. */
export function expectPositionals(parsed: ParsedArgs, names: readonly string[], commandName: string): string[] {
  if (parsed.positionals.length < names.length) {
    const missing = names.slice(parsed.positionals.length).join(" ");
    throw new UsageError(`"${commandName}" needs ${missing}.`);
  }
  if (parsed.positionals.length > names.length) {
    const extra = parsed.positionals.slice(names.length).join(" ");
    throw new UsageError(
      `Unexpected argument${parsed.positionals.length - names.length > 1 ? "s" : ""} for "${commandName}": ${extra}.`,
    );
  }
  return parsed.positionals;
}

/** Postgres `integer` columns hold the limits, so a larger number could never be stored. */
export const MAX_INTEGER = 2_147_483_647;

export function parsePositiveInteger(value: string, flag: string, allowNone: boolean): number {
  if (/^[1-9][0-9]*$/.test(value)) {
    const number = Number(value);
    if (number <= MAX_INTEGER) return number;
  }
  throw new UsageError(
    `--${flag} must be a positive whole number up to ${MAX_INTEGER}${allowNone ? ' or "none"' : ""}, not "${value}".`,
  );
}

export function parseIndex(value: string, flag: string): number {
  if (/^(0|[1-9][0-9]*)$/.test(value) && Number(value) <= MAX_INTEGER) return Number(value);
  throw new UsageError(`--${flag} must be a 0-based index (0, 1, 2, …), not "${value}".`);
}

/** One of a fixed set of words, e.g. enabled|disabled. */
export function parseChoice<T extends string>(value: string, flag: string, choices: readonly T[]): T {
  const found = choices.find((choice) => choice === value);
  if (found !== undefined) return found;
  throw new UsageError(`--${flag} must be ${formatChoices(choices)}, not "${value}".`);
}

function formatChoices(choices: readonly string[]): string {
  if (choices.length <= 1) return choices.join("");
  return `${choices.slice(0, -1).join(", ")} or ${choices[choices.length - 1]}`;
}

/** An ISO 8601 time with a date and a time, in UTC unless it names an offset. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** A flag's ISO 8601 time (UTC unless it names an offset), or a usage error naming the flag and an example. */
export function parseIsoTime(text: string, flag: string, example: string): Date {
  const time = new Date(ISO_TIME.test(text) && !/(Z|[+-]\d{2}:\d{2})$/.test(text) ? `${text}Z` : text);
  if (!ISO_TIME.test(text) || Number.isNaN(time.getTime())) {
    throw new UsageError(`--${flag} takes an ISO 8601 time such as ${example}, not "${text}".`);
  }
  return time;
}
