import { isTestCardKind, TEST_CARDS } from "@/lib/billing/test-cards";
import { CURRENCIES } from "@/lib/catalog";
import type { OrganizationSettings } from "@/lib/points/accounts/organizations";
import { USER_ROLES } from "@/lib/points/accounts/users";
import {
  expectPositionals,
  type FlagSpec,
  flagValue,
  type ParsedArgs,
  parseArgs,
  parseChoice,
  parseIndex,
  parsePositiveInteger,
  UsageError,
} from "./args";
import { type BalanceChanges, balanceFlags, parseBalanceFlags } from "./balance-flags";
import { type GrantCommand, parseGrantCommand } from "./grant-commands";
import { type KeyCommand, parseKeyCommand } from "./key-commands";
import { parseWebhookCommand, type WebhookCommand } from "./webhook-commands";

/** The organisation options shared by `org create` and `org update`, already validated. */
export interface OrgOptions {
  settings: OrganizationSettings;
  defaultCardIndex?: number;
  simulateOutage?: boolean;
  /** The low-balance threshold and auto-recharge, saved as Settings saves them. */
  balance?: BalanceChanges;
}

export type PointsCommand =
  | { kind: "help" }
  | {
      kind: "org-create";
      name: string;
      cards: string[];
      options: OrgOptions;
      json: boolean;
      /** --stripe-customer: link this existing Stripe customer instead of creating one. */
      stripeCustomer?: string;
      /** --admin-email: the first admin's sign-in email; a made-up one when absent. */
      adminEmail?: string;
    }
  | {
      kind: "org-update";
      organizationId: string;
      options: OrgOptions;
      json: boolean;
      /** --stripe-customer cus_… links that customer; --new-stripe-customer makes a new one. */
      billingCustomer?: { link: string } | { create: true };
    }
  | KeyCommand
  | GrantCommand
  | { kind: "user-add"; organizationId: string; email: string; role: string; json: boolean }
  | { kind: "user-reset-password"; who: { userId: string } | { email: string }; json: boolean }
  | { kind: "reconcile"; json: boolean; report: boolean }
  | { kind: "top-up-refund"; topUpId: string; points?: number; reason?: string; key?: string; json: boolean }
  | { kind: "dispute-settle"; topUpId: string; outcome: "won" | "lost"; json: boolean }
  | {
      kind: "org-spend";
      organizationId: string;
      points: number;
      reference?: string;
      description?: string;
      json: boolean;
    }
  | { kind: "stripe-setup-prices"; json: boolean }
  | WebhookCommand
  | { kind: "audit"; organizationId?: string; json: boolean };

const json: FlagSpec = { name: "json", kind: "switch" };

const orgFlags: FlagSpec[] = [
  json,
  { name: "currency", kind: "value" },
  { name: "api-purchases", kind: "value" },
  { name: "available", kind: "value" },
  { name: "default-card", kind: "value" },
  { name: "max-points-per-top-up", kind: "value" },
  { name: "max-points-balance", kind: "value" },
  { name: "frequency-limit", kind: "value" },
  { name: "daily-points-limit", kind: "value" },
  { name: "paid-points-expire-after-days", kind: "value" },
  { name: "simulate-outage", kind: "value" },
  ...balanceFlags,
];
// --card is known to `org update` only so that it can be refused with the reason, not as unknown.
const cardFlag: FlagSpec = { name: "card", kind: "value", repeatable: true };

/**
 * Turns the command line into a validated command without touching the database, so that every
 * mistake in it is refused before anything is opened or written.
 */
export function parseCommand(argv: readonly string[]): PointsCommand {
  const [first, second, ...rest] = argv;
  // --help anywhere wins over any other mistake in the line: the operator is asking how to write it.
  if (first === undefined || first === "help" || argv.includes("--help") || argv.includes("-h")) {
    return { kind: "help" };
  }
  switch (first) {
    case "org":
      if (second === "create") return parseOrgCreate(rest);
      if (second === "update") return parseOrgUpdate(rest);
      if (second === "spend") return parseOrgSpend(rest);
      break;
    case "top-up":
      if (second === "refund") return parseTopUpRefund(rest);
      break;
    case "dispute":
      if (second === "settle") return parseDisputeSettle(rest);
      break;
    case "key": {
      const command = parseKeyCommand(second, rest);
      if (command) return command;
      break;
    }
    case "user":
      if (second === "add") return parseUserAdd(rest);
      if (second === "reset-password") return parseUserResetPassword(rest);
      break;
    case "reconcile":
      return parseReconcile(second === undefined ? [] : [second, ...rest]);
    case "stripe":
      if (second === "setup-prices") return parseStripeSetupPrices(rest);
      break;
    case "audit":
      return parseAudit(second === undefined ? [] : [second, ...rest]);
    case "webhook": {
      const command = parseWebhookCommand(second, rest);
      if (command) return command;
      break;
    }
    case "grant": {
      const command = parseGrantCommand(second, rest);
      if (command) return command;
      break;
    }
  }
  const known = ["org", "key", "user", "stripe", "top-up", "dispute", "webhook", "grant"].includes(first);
  throw new UsageError(
    known && second === undefined
      ? `"${first}" needs a subcommand.`
      : `Unknown command "${[first, ...(known && second !== undefined ? [second] : [])].join(" ")}".`,
    true,
  );
}

function parseOrgCreate(args: string[]): PointsCommand {
  const parsed = parseArgs(
    args,
    [
      ...orgFlags,
      cardFlag,
      { name: "name", kind: "value" },
      { name: "stripe-customer", kind: "value" },
      { name: "admin-email", kind: "value" },
    ],
    "org create",
  );
  expectPositionals(parsed, [], "org create");
  const name = flagValue(parsed, "name");
  if (name === undefined || !name.trim()) throw new UsageError('"org create" needs --name NAME.');
  const cards = parsed.values.get("card") ?? [];
  for (const card of cards) {
    if (!isTestCardKind(card)) {
      throw new UsageError(`Unknown --card "${card}": use one of ${Object.keys(TEST_CARDS).join(", ")}.`);
    }
  }
  const stripeCustomer = stripeCustomerFlag(parsed);
  const adminEmail = flagValue(parsed, "admin-email");
  return {
    kind: "org-create",
    name,
    cards,
    options: parseOrgOptions(parsed),
    json: parsed.switches.has("json"),
    ...(stripeCustomer !== undefined ? { stripeCustomer } : {}),
    ...(adminEmail !== undefined ? { adminEmail } : {}),
  };
}

function stripeCustomerFlag(parsed: ParsedArgs): string | undefined {
  const stripeCustomer = flagValue(parsed, "stripe-customer");
  if (stripeCustomer !== undefined && !/^cus_[A-Za-z0-9_]+$/.test(stripeCustomer)) {
    throw new UsageError(`--stripe-customer must be a Stripe customer ID (cus_…), not "${stripeCustomer}".`);
  }
  return stripeCustomer;
}

function parseOrgUpdate(args: string[]): PointsCommand {
  const parsed = parseArgs(
    args,
    [
      ...orgFlags,
      cardFlag,
      { name: "stripe-customer", kind: "value" },
      { name: "new-stripe-customer", kind: "switch" },
    ],
    "org update",
  );
  if (parsed.values.has("card")) {
    throw new UsageError(
      '--card works only with "org create": an existing organisation\'s cards cannot be added here.',
    );
  }
  const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "org update");
  const link = stripeCustomerFlag(parsed);
  const create = parsed.switches.has("new-stripe-customer");
  if (link !== undefined && create) {
    throw new UsageError(
      "Use either --stripe-customer cus_… (an existing customer) or --new-stripe-customer, not both.",
    );
  }
  const billingCustomer = link !== undefined ? { link } : create ? { create: true as const } : undefined;
  return {
    kind: "org-update",
    organizationId,
    options: parseOrgOptions(parsed),
    json: parsed.switches.has("json"),
    ...(billingCustomer ? { billingCustomer } : {}),
  };
}

function parseOrgOptions(parsed: ParsedArgs): OrgOptions {
  const settings: OrganizationSettings = {};
  const currency = flagValue(parsed, "currency");
  if (currency !== undefined) {
    const choice = parseChoice(currency, "currency", [...CURRENCIES, "none"]);
    settings.currency = choice === "none" ? null : choice;
  }
  const apiPurchases = flagValue(parsed, "api-purchases");
  if (apiPurchases !== undefined) {
    settings.apiPurchasesEnabled = parseChoice(apiPurchases, "api-purchases", ["enabled", "disabled"]) === "enabled";
  }
  const available = flagValue(parsed, "available");
  if (available !== undefined) settings.apiAvailable = parseChoice(available, "available", ["yes", "no"]) === "yes";
  const perTopUp = optionalLimit(parsed, "max-points-per-top-up");
  if (perTopUp !== undefined) settings.maxPointsPerTopUp = perTopUp;
  const balance = optionalLimit(parsed, "max-points-balance");
  if (balance !== undefined) settings.maxPointsBalance = balance;
  const daily = optionalLimit(parsed, "daily-points-limit");
  if (daily !== undefined) settings.dailyPointsLimit = daily;
  const expiry = flagValue(parsed, "paid-points-expire-after-days");
  if (expiry !== undefined) {
    const days = expiry === "never" ? null : parsePositiveInteger(expiry, "paid-points-expire-after-days", false);
    if (days !== null && days > 36500) {
      throw new UsageError(`--paid-points-expire-after-days must be 1 to 36500 days or "never", not "${expiry}".`);
    }
    settings.paidPointsExpireAfterDays = days;
  }
  const frequency = flagValue(parsed, "frequency-limit");
  if (frequency !== undefined) settings.frequencyLimit = parseFrequency(frequency);

  const options: OrgOptions = { settings };
  const defaultCard = flagValue(parsed, "default-card");
  if (defaultCard !== undefined) options.defaultCardIndex = parseIndex(defaultCard, "default-card");
  const outage = flagValue(parsed, "simulate-outage");
  if (outage !== undefined) options.simulateOutage = parseChoice(outage, "simulate-outage", ["on", "off"]) === "on";
  const balanceChanges = parseBalanceFlags(parsed);
  if (balanceChanges) options.balance = balanceChanges;
  return options;
}

/** N or "none" (null clears the limit); undefined when the flag was not given. */
function optionalLimit(parsed: ParsedArgs, flag: string): number | null | undefined {
  const value = flagValue(parsed, flag);
  if (value === undefined) return undefined;
  return value === "none" ? null : parsePositiveInteger(value, flag, true);
}

function parseFrequency(value: string): { count: number; windowSeconds: number } | null {
  if (value === "none") return null;
  const match = /^([^/]+)\/([^/]+)$/.exec(value);
  const count = match?.[1];
  const seconds = match?.[2];
  if (count === undefined || seconds === undefined) {
    throw new UsageError(`--frequency-limit must be COUNT/SECONDS (e.g. 10/60) or "none", not "${value}".`);
  }
  const bad = () =>
    new UsageError(
      `--frequency-limit must be COUNT/SECONDS with both positive whole numbers (e.g. 10/60) or "none", not "${value}".`,
    );
  if (!/^[1-9][0-9]*$/.test(count) || !/^[1-9][0-9]*$/.test(seconds)) throw bad();
  try {
    return {
      count: parsePositiveInteger(count, "frequency-limit", true),
      windowSeconds: parsePositiveInteger(seconds, "frequency-limit", true),
    };
  } catch {
    throw bad();
  }
}

function parseUserAdd(args: string[]): PointsCommand {
  const parsed = parseArgs(args, [json, { name: "email", kind: "value" }, { name: "role", kind: "value" }], "user add");
  const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "user add");
  const email = flagValue(parsed, "email");
  if (email === undefined) throw new UsageError('"user add" needs --email E.');
  const role = flagValue(parsed, "role");
  if (role === undefined) throw new UsageError('"user add" needs --role admin|member.');
  return {
    kind: "user-add",
    organizationId,
    email,
    role: parseChoice(role, "role", USER_ROLES),
    json: parsed.switches.has("json"),
  };
}

function parseUserResetPassword(args: string[]): PointsCommand {
  const parsed = parseArgs(args, [json, { name: "email", kind: "value" }], "user reset-password");
  const email = flagValue(parsed, "email");
  const [userId] = parsed.positionals;
  if (parsed.positionals.length > 1 || (userId !== undefined && email !== undefined) || (!userId && !email)) {
    throw new UsageError('"user reset-password" needs the user: USER_ID or --email E, one of them.');
  }
  return {
    kind: "user-reset-password",
    who: userId !== undefined ? { userId } : { email: email as string },
    json: parsed.switches.has("json"),
  };
}

function parseStripeSetupPrices(args: string[]): PointsCommand {
  const parsed = parseArgs(args, [json], "stripe setup-prices");
  expectPositionals(parsed, [], "stripe setup-prices");
  return { kind: "stripe-setup-prices", json: parsed.switches.has("json") };
}

function parseAudit(args: string[]): PointsCommand {
  const parsed = parseArgs(args, [json, { name: "org", kind: "value" }], "audit");
  expectPositionals(parsed, [], "audit");
  const organizationId = flagValue(parsed, "org");
  return {
    kind: "audit",
    json: parsed.switches.has("json"),
    ...(organizationId !== undefined ? { organizationId } : {}),
  };
}

function parseReconcile(args: string[]): PointsCommand {
  const parsed = parseArgs(args, [json, { name: "report", kind: "switch" }], "reconcile");
  expectPositionals(parsed, [], "reconcile");
  return { kind: "reconcile", json: parsed.switches.has("json"), report: parsed.switches.has("report") };
}

function parseTopUpRefund(args: string[]): PointsCommand {
  const parsed = parseArgs(
    args,
    [json, { name: "points", kind: "value" }, { name: "reason", kind: "value" }, { name: "key", kind: "value" }],
    "top-up refund",
  );
  const [topUpId = ""] = expectPositionals(parsed, ["TOP_UP_ID"], "top-up refund");
  const points = flagValue(parsed, "points");
  const reason = flagValue(parsed, "reason");
  const key = flagValue(parsed, "key");
  if (reason !== undefined && (reason.trim() === "" || reason.length > 500))
    throw new UsageError("--reason must be 1 to 500 characters.");
  if (key !== undefined && !/^[A-Za-z0-9._:-]{1,100}$/.test(key))
    throw new UsageError("--key must be 1 to 100 of A-Z a-z 0-9 . _ : -");
  return {
    kind: "top-up-refund",
    topUpId,
    ...(points !== undefined ? { points: parsePositiveInteger(points, "points", false) } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(key !== undefined ? { key } : {}),
    json: parsed.switches.has("json"),
  };
}

function parseDisputeSettle(args: string[]): PointsCommand {
  const parsed = parseArgs(args, [json, { name: "outcome", kind: "value" }], "dispute settle");
  const [topUpId = ""] = expectPositionals(parsed, ["TOP_UP_ID"], "dispute settle");
  const outcome = flagValue(parsed, "outcome");
  if (outcome === undefined) throw new UsageError('"dispute settle" needs --outcome won|lost.');
  return {
    kind: "dispute-settle",
    topUpId,
    outcome: parseChoice(outcome, "outcome", ["won", "lost"] as const),
    json: parsed.switches.has("json"),
  };
}

function parseOrgSpend(args: string[]): PointsCommand {
  const parsed = parseArgs(
    args,
    [
      json,
      { name: "points", kind: "value" },
      { name: "reference", kind: "value" },
      { name: "description", kind: "value" },
    ],
    "org spend",
  );
  const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "org spend");
  const points = flagValue(parsed, "points");
  if (points === undefined) throw new UsageError('"org spend" needs --points N.');
  const reference = flagValue(parsed, "reference");
  const description = flagValue(parsed, "description");
  return {
    kind: "org-spend",
    organizationId,
    points: parsePositiveInteger(points, "points", false),
    ...(reference !== undefined ? { reference } : {}),
    ...(description !== undefined ? { description } : {}),
    json: parsed.switches.has("json"),
  };
}
