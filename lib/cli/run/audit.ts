import { getOrganization } from "@/lib/points/accounts/organizations";
import { listAudit, toAuditJson } from "@/lib/points/audit";
import type { Runtime } from "@/lib/server/runtime";
import type { PointsCommand } from "../commands";
import { type CliIo, printJson } from "../output";
import { CommandRefused } from "./shared";

/** `audit [--org ORG_ID]` (docs/contract.md §8): the latest 200 entries, newest first. */
export async function audit(
  command: Extract<PointsCommand, { kind: "audit" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  if (command.organizationId && !(await getOrganization(runtime.db, command.organizationId))) {
    throw new CommandRefused(`No organisation ${command.organizationId}.`);
  }
  const entries = (await listAudit(runtime.db, { organizationId: command.organizationId })).map(toAuditJson);
  if (command.json) return printJson(io, { entries });
  if (entries.length === 0) return io.stdout("No audit entries.\n");
  return io.stdout(
    `${entries
      .map(
        (entry) =>
          `${entry.at}  ${entry.actor.type}:${entry.actor.id}  ${entry.action}  ${entry.target}${entry.request_id ? `  (${entry.request_id})` : ""}`,
      )
      .join("\n")}\n`,
  );
}
