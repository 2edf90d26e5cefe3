import { describe, expect, it } from "vitest";
import { UsageError } from "./args";
import { parseCommand } from "./commands";

function refusal(argv: string[]): UsageError {
  try {
    parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`"${argv.join(" ")}" was accepted`);
}

describe("the operator command line is validated before anything is opened", () => {
  it("reads every org option of CONTRACT §7, in both --flag value and --flag=value forms", () => {
    expect(
      parseCommand([
        "org",
        "create",
        "--name",
        "Acme Ltd",
        "--card",
        "visa",
        "--card=declined",
        "--default-card",
        "1",
        "--currency=GBP",
        "--api-purchases",
        "enabled",
        "--available",
        "no",
        "--max-points-per-top-up",
        "1000",
        "--max-points-balance=5000",
        "--frequency-limit",
        "3/60",
        "--daily-points-limit",
        "2500",
        "--simulate-outage",
        "on",
        "--json",
      ]),
    ).toEqual({
      kind: "org-create",
      name: "Acme Ltd",
      cards: ["visa", "declined"],
      json: true,
      options: {
        defaultCardIndex: 1,
        simulateOutage: true,
        settings: {
          currency: "GBP",
          apiPurchasesEnabled: true,
          apiAvailable: false,
          maxPointsPerTopUp: 1000,
          maxPointsBalance: 5000,
          frequencyLimit: { count: 3, windowSeconds: 60 },
          dailyPointsLimit: 2500,
        },
      },
    });
  });

  it("turns none into a cleared setting and leaves options that were not given untouched", () => {
    expect(
      parseCommand([
        "org",
        "update",
        "org_1",
        "--currency",
        "none",
        "--max-points-per-top-up",
        "none",
        "--max-points-balance",
        "none",
        "--frequency-limit",
        "none",
        "--daily-points-limit",
        "none",
        "--simulate-outage",
        "off",
      ]),
    ).toEqual({
      kind: "org-update",
      organizationId: "org_1",
      json: false,
      options: {
        simulateOutage: false,
        settings: {
          currency: null,
          maxPointsPerTopUp: null,
          maxPointsBalance: null,
          frequencyLimit: null,
          dailyPointsLimit: null,
        },
      },
    });
    expect(parseCommand(["org", "update", "org_1"])).toEqual({
      kind: "org-update",
      organizationId: "org_1",
      json: false,
      options: { settings: {} },
    });
  });

  it("reads the key, user and reconcile commands", () => {
    expect(parseCommand(["key", "create", "org_1", "--json"])).toEqual({
      kind: "key-create",
      organizationId: "org_1",
      json: true,
    });
    expect(parseCommand(["key", "create", "org_1", "--scope", "read", "--daily-points-cap=5000"])).toEqual({
      kind: "key-create",
      organizationId: "org_1",
      json: false,
      scope: "read",
      dailyPointsCap: 5000,
    });
    // The name as typed: createApiKey trims and checks it, for the dashboard and the command alike.
    expect(parseCommand(["key", "create", "org_1", "--name", " Build server ", "--scope=spend"])).toEqual({
      kind: "key-create",
      organizationId: "org_1",
      json: false,
      name: " Build server ",
      scope: "spend",
    });
    expect(parseCommand(["key", "create", "org_1", "--name=Nightly export", "--json"])).toMatchObject({
      name: "Nightly export",
      json: true,
    });
    expect(parseCommand(["key", "revoke", "key_1"])).toEqual({ kind: "key-revoke", keyId: "key_1", json: false });
    expect(parseCommand(["user", "add", "org_1", "--email=a@b.example", "--role", "member", "--json"])).toEqual({
      kind: "user-add",
      organizationId: "org_1",
      email: "a@b.example",
      role: "member",
      json: true,
    });
    expect(parseCommand(["user", "reset-password", "usr_1", "--json"])).toEqual({
      kind: "user-reset-password",
      who: { userId: "usr_1" },
      json: true,
    });
    expect(parseCommand(["user", "reset-password", "--email", "a@b.example"])).toEqual({
      kind: "user-reset-password",
      who: { email: "a@b.example" },
      json: false,
    });
    for (const argv of [
      ["user", "reset-password"],
      ["user", "reset-password", "usr_1", "--email", "a@b.example"],
      ["user", "reset-password", "usr_1", "usr_2"],
    ]) {
      expect(() => parseCommand(argv)).toThrow(
        '"user reset-password" needs the user: USER_ID or --email E, one of them.',
      );
    }
    expect(parseCommand(["org", "update", "org_1", "--paid-points-expire-after-days", "365"])).toMatchObject({
      kind: "org-update",
      options: { settings: { paidPointsExpireAfterDays: 365 } },
    });
    expect(parseCommand(["org", "update", "org_1", "--paid-points-expire-after-days", "never"])).toMatchObject({
      options: { settings: { paidPointsExpireAfterDays: null } },
    });
    expect(parseCommand(["reconcile", "--json"])).toEqual({ kind: "reconcile", json: true, report: false });
    expect(parseCommand(["reconcile", "--report"])).toEqual({ kind: "reconcile", json: false, report: true });
  });

  it("answers help for no arguments, help and --help anywhere", () => {
    expect(parseCommand([])).toEqual({ kind: "help" });
    expect(parseCommand(["help"])).toEqual({ kind: "help" });
    expect(parseCommand(["org", "create", "--bogus", "--help"])).toEqual({ kind: "help" });
  });

  it.each([
    [
      ["org", "create", "--name", "A", "--max-points-balance", "0"],
      /--max-points-balance must be a positive whole number/,
    ],
    [
      ["org", "create", "--name", "A", "--max-points-balance", "-5"],
      /--max-points-balance must be a positive whole number/,
    ],
    [["org", "create", "--name", "A", "--max-points-per-top-up", "1.5"], /--max-points-per-top-up must be a positive/],
    [["org", "create", "--name", "A", "--daily-points-limit", "abc"], /--daily-points-limit must be a positive/],
    [["org", "update", "org_1", "--paid-points-expire-after-days", "0"], /--paid-points-expire-after-days must be/],
    [["org", "update", "org_1", "--paid-points-expire-after-days", "36501"], /1 to 36500 days or "never"/],
    [["org", "create", "--name", "A", "--daily-points-limit", "2147483648"], /up to 2147483647/],
    [["org", "create", "--name", "A", "--daily-points-limit", "1e3"], /--daily-points-limit must be a positive/],
    [["org", "create", "--name", "A", "--frequency-limit", "3"], /--frequency-limit must be COUNT\/SECONDS/],
    [["org", "create", "--name", "A", "--frequency-limit", "3/0"], /both positive whole numbers/],
    [["org", "create", "--name", "A", "--frequency-limit", "0/60"], /both positive whole numbers/],
    [["org", "create", "--name", "A", "--frequency-limit", "3/60/1"], /--frequency-limit must be COUNT\/SECONDS/],
    [["org", "create", "--name", "A", "--default-card", "-1"], /--default-card must be a 0-based index/],
    [["org", "create", "--name", "A", "--default-card", "one"], /--default-card must be a 0-based index/],
    [["org", "create", "--name", "A", "--currency", "usd"], /--currency must be USD, GBP, EUR or none/],
    [["org", "create", "--name", "A", "--api-purchases", "yes"], /--api-purchases must be enabled or disabled/],
    [["org", "create", "--name", "A", "--available", "true"], /--available must be yes or no/],
    [["org", "create", "--name", "A", "--simulate-outage", "1"], /--simulate-outage must be on or off/],
    [["org", "create", "--name", "A", "--card", "amex"], /Unknown --card "amex"/],
    [["org", "create", "--name", "A", "--colour", "red"], /Unknown option --colour/],
    [["org", "create", "--name", "A", "-v"], /Unknown option -v/],
    [["org", "create", "--name", "A", "--json=yes"], /--json takes no value/],
    [["org", "create", "--name", "A", "--currency", "USD", "--currency", "GBP"], /--currency is given more than once/],
    [["org", "create", "--name"], /--name needs a value/],
    [["org", "create", "--name", "--json"], /--name needs a value/],
    [["org", "create", "--name="], /--name needs a value/],
    [["org", "create", "--name", "   "], /needs --name NAME/],
    [["org", "create", "--json"], /needs --name NAME/],
    [["org", "create", "--name", "A", "stray"], /Unexpected argument for "org create": stray/],
    [["org", "update", "org_1", "--card", "visa"], /--card works only with "org create"/],
    [["org", "update", "--currency", "USD"], /"org update" needs ORG_ID/],
    [["org", "update", "org_1", "org_2"], /Unexpected argument/],
    [["key", "create"], /"key create" needs ORG_ID/],
    [["key", "create", "org_1", "--name"], /--name needs a value/],
    [["key", "create", "org_1", "--name", "A", "--name", "B"], /--name is given more than once/],
    [["key", "revoke", "key_1", "--name", "A"], /Unknown option --name/],
    [["key", "create", "org_1", "--scope", "admin"], /--scope must be purchase, spend or read, not "admin"/],
    [["key", "create", "org_1", "--daily-points-cap", "0"], /--daily-points-cap must be a positive whole number/],
    [["key", "create", "org_1", "--daily-points-cap", "none"], /--daily-points-cap must be a positive whole number/],
    [["key", "revoke", "key_1", "--force"], /Unknown option --force/],
    [["user", "add", "org_1", "--role", "admin"], /needs --email/],
    [["user", "add", "org_1", "--email", "a@b.example"], /needs --role/],
    [["user", "add", "org_1", "--email", "a@b.example", "--role", "owner"], /--role must be admin or member/],
    [["reconcile", "now"], /Unexpected argument for "reconcile"/],
  ])("refuses %j", (argv, message) => {
    const error = refusal(argv);
    expect(error.message).toMatch(message);
    expect(error.showUsage).toBe(false);
  });

  it.each([[["bogus"]], [["org"]], [["org", "delete", "org_1"]], [["key", "list"]]])(
    "refuses the unknown command %j with the usage",
    (argv) => {
      expect(refusal(argv).showUsage).toBe(true);
    },
  );
});
