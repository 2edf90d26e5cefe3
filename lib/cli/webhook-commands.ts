import { expectPositionals, type FlagSpec, flagValue, parseArgs, parseIsoTime, UsageError } from "./args";

/** The `webhook …` commands of docs/contract.md §8, validated. */
export type WebhookCommand =
  | { kind: "webhook-add"; organizationId: string; url: string; events: string[] | null; json: boolean }
  | { kind: "webhook-list"; organizationId: string; json: boolean }
  | { kind: "webhook-recover"; endpointId: string; since: Date; json: boolean }
  | {
      kind: "webhook-rotate" | "webhook-disable" | "webhook-enable" | "webhook-delete" | "webhook-deliveries";
      endpointId: string;
      json: boolean;
    };

const json: FlagSpec = { name: "json", kind: "switch" };
const BY_ENDPOINT = ["rotate", "disable", "enable", "delete", "deliveries"] as const;
export const WEBHOOK_SUBCOMMANDS = ["add", "list", "recover", ...BY_ENDPOINT] as const;

/** `webhook SUBCOMMAND …`, or null when the subcommand is not one of them. */
export function parseWebhookCommand(subcommand: string | undefined, args: string[]): WebhookCommand | null {
  if (subcommand === "add") {
    const parsed = parseArgs(
      args,
      [json, { name: "url", kind: "value" }, { name: "events", kind: "value" }],
      "webhook add",
    );
    const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "webhook add");
    const url = flagValue(parsed, "url");
    if (url === undefined || !url.trim()) throw new UsageError('"webhook add" needs --url URL.');
    const events = flagValue(parsed, "events");
    return {
      kind: "webhook-add",
      organizationId,
      url,
      events:
        events === undefined
          ? null
          : events
              .split(",")
              .map((type) => type.trim())
              .filter(Boolean),
      json: parsed.switches.has("json"),
    };
  }
  if (subcommand === "list") {
    const parsed = parseArgs(args, [json], "webhook list");
    const [organizationId = ""] = expectPositionals(parsed, ["ORG_ID"], "webhook list");
    return { kind: "webhook-list", organizationId, json: parsed.switches.has("json") };
  }
  if (subcommand === "recover") {
    const parsed = parseArgs(args, [json, { name: "since", kind: "value" }], "webhook recover");
    const [endpointId = ""] = expectPositionals(parsed, ["ENDPOINT_ID"], "webhook recover");
    const text = flagValue(parsed, "since");
    if (text === undefined) throw new UsageError('"webhook recover" needs --since ISO, e.g. 2026-11-28T09:00:00Z.');
    const since = parseIsoTime(text, "since", "2026-11-28T09:00:00Z");
    return { kind: "webhook-recover", endpointId, since, json: parsed.switches.has("json") };
  }
  const verb = BY_ENDPOINT.find((name) => name === subcommand);
  if (!verb) return null;
  const parsed = parseArgs(args, [json], `webhook ${verb}`);
  const [endpointId = ""] = expectPositionals(parsed, ["ENDPOINT_ID"], `webhook ${verb}`);
  return { kind: `webhook-${verb}`, endpointId, json: parsed.switches.has("json") };
}
