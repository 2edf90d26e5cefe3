import { API_KEY_SCOPES, type ApiKeyScope } from "@/lib/points/accounts/api-keys";
import { expectPositionals, type FlagSpec, flagValue, parseArgs, parseChoice, parsePositiveInteger } from "./args";

/** The `key …` commands of docs/contract.md §7, validated. */
export type KeyCommand =
  | {
      kind: "key-create";
      organizationId: string;
      json: boolean;
      /** --name, as typed: createApiKey trims and checks it (one rule for the dashboard and the command). */
      name?: string;
      scope?: ApiKeyScope;
      dailyPointsCap?: number;
    }
  | { kind: "key-revoke"; keyId: string; json: boolean };

const json: FlagSpec = { name: "json", kind: "switch" };

/** `key SUBCOMMAND …`, or null when the subcommand is not one of them. */
export function parseKeyCommand(subcommand: string | undefined, args: string[]): KeyCommand | null {
  if (subcommand === "create") {
    const parsed = parseArgs(
      args,
      [
        json,
        { name: "name", kind: "value" },
        { name: "scope", kind: "value" },
        { name: "daily-points-cap", kind: "value" },
      ],
      "key create",
    );
    const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "key create");
    const name = flagValue(parsed, "name");
    const scope = flagValue(parsed, "scope");
    const cap = flagValue(parsed, "daily-points-cap");
    return {
      kind: "key-create",
      organizationId,
      json: parsed.switches.has("json"),
      ...(name !== undefined ? { name } : {}),
      ...(scope !== undefined ? { scope: parseChoice(scope, "scope", API_KEY_SCOPES) } : {}),
      ...(cap !== undefined ? { dailyPointsCap: parsePositiveInteger(cap, "daily-points-cap", false) } : {}),
    };
  }
  if (subcommand === "revoke") {
    const parsed = parseArgs(args, [json], "key revoke");
    const [keyId = ""] = expectPositionals(parsed, ["KEY_ID"], "key revoke");
    return { kind: "key-revoke", keyId, json: parsed.switches.has("json") };
  }
  return null;
}
