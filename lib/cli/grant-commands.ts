import {
  expectPositionals,
  type FlagSpec,
  flagValue,
  parseArgs,
  parseIsoTime,
  parsePositiveInteger,
  UsageError,
} from "./args";

/** The `grant …` commands of docs/contract.md §10, validated. */
export type GrantCommand =
  | {
      kind: "grant-create";
      organizationId: string;
      points: number;
      reason: string;
      reference?: string;
      expiresAt?: Date;
      /** --expires-in-days D: resolved against the clock when the command runs. */
      expiresInDays?: number;
      json: boolean;
    }
  | { kind: "grant-void"; grantId: string; json: boolean }
  | { kind: "grant-list"; organizationId: string; json: boolean };

const json: FlagSpec = { name: "json", kind: "switch" };

/** `grant SUBCOMMAND …`, or null when the subcommand is not one of them. */
export function parseGrantCommand(subcommand: string | undefined, args: string[]): GrantCommand | null {
  if (subcommand === "create") {
    const parsed = parseArgs(
      args,
      [
        json,
        { name: "points", kind: "value" },
        { name: "reason", kind: "value" },
        { name: "reference", kind: "value" },
        { name: "expires-at", kind: "value" },
        { name: "expires-in-days", kind: "value" },
      ],
      "grant create",
    );
    const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "grant create");
    const points = flagValue(parsed, "points");
    if (points === undefined) throw new UsageError('"grant create" needs --points N.');
    const reason = flagValue(parsed, "reason");
    if (reason === undefined) throw new UsageError('"grant create" needs --reason TEXT.');
    const at = flagValue(parsed, "expires-at");
    const inDays = flagValue(parsed, "expires-in-days");
    if (at !== undefined && inDays !== undefined) {
      throw new UsageError("--expires-at and --expires-in-days say the same thing: give one of them.");
    }
    const expiresAt = at === undefined ? undefined : parseIsoTime(at, "expires-at", "2026-12-31T23:59:59Z");
    return {
      kind: "grant-create",
      organizationId,
      points: parsePositiveInteger(points, "points", false),
      reason,
      reference: flagValue(parsed, "reference"),
      expiresAt,
      expiresInDays: inDays === undefined ? undefined : parsePositiveInteger(inDays, "expires-in-days", false),
      json: parsed.switches.has("json"),
    };
  }
  if (subcommand === "void") {
    const parsed = parseArgs(args, [json], "grant void");
    const [grantId = ""] = expectPositionals(parsed, ["GRANT_ID"], "grant void");
    return { kind: "grant-void", grantId, json: parsed.switches.has("json") };
  }
  if (subcommand === "list") {
    const parsed = parseArgs(args, [json], "grant list");
    const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "grant list");
    return { kind: "grant-list", organizationId, json: parsed.switches.has("json") };
  }
  return null;
}
