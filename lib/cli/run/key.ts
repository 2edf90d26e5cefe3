import { type ApiKeyScope, createApiKey, revokeApiKey } from "@/lib/points/accounts/api-keys";
import { getOrganization } from "@/lib/points/accounts/organizations";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson } from "../output";
import { CommandRefused } from "./shared";

const SCOPE_WORDS: Record<ApiKeyScope, string> = {
  purchase: "purchase",
  spend: "spend (reads, quotes and spends; no purchases)",
  read: "read (every GET and the quote; no purchases)",
};

export async function keyCreate(
  command: Extract<PointsCommand, { kind: "key-create" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  // createApiKey trusts its caller about the organisation; an operator's typo must not reach the
  // database as a foreign-key violation.
  const organization = await getOrganization(runtime.db, command.organizationId);
  if (!organization) throw new CommandRefused(`No organisation ${command.organizationId}.`);
  const created = await createApiKey(runtime.db, organization.id, runtime.clock, {
    name: command.name,
    scope: command.scope,
    dailyPointsCap: command.dailyPointsCap,
  });
  if (command.json) {
    printJson(io, {
      organization_id: organization.id,
      key_id: created.keyId,
      api_key: created.apiKey,
      scope: created.scope,
      daily_points_cap: created.dailyPointsCap,
    });
    return;
  }
  io.stdout(
    [
      `Created API key ${created.keyId} for ${organization.id} (${organization.name}).`,
      `  name:      ${created.name}`,
      `  API key:   ${created.apiKey}`,
      "             shown only now, so store it.",
      `  scope:     ${SCOPE_WORDS[created.scope]}`,
      `  daily cap: ${created.dailyPointsCap === null ? "none" : `${created.dailyPointsCap} Points in 24 hours`}`,
      "",
    ].join("\n"),
  );
}

export async function keyRevoke(
  command: Extract<PointsCommand, { kind: "key-revoke" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const revoked = await revokeApiKey(runtime.db, command.keyId, runtime.clock);
  if (!revoked)
    throw new CommandRefused(`No active API key ${command.keyId}: it does not exist or was already revoked.`);
  if (command.json) {
    printJson(io, { key_id: command.keyId, revoked: true });
    return;
  }
  io.stdout(`Revoked API key ${command.keyId}: requests with it are now refused (403 invalid_api_key).\n`);
}
