import { formatDateTime, formatPoints } from "@/lib/format";
import { getOrganization } from "@/lib/points/accounts/organizations";
import { createGrant, listGrants, voidGrant } from "@/lib/points/grants/grants";
import type { Runtime } from "@/lib/server/runtime";
import type { GrantCommand } from "../grant-commands";
import { type CliIo, printJson } from "../output";
import { CommandRefused } from "./shared";

/** `grant create|void|list` (docs/contract.md §10): promotional Points, the operator's alone. */
export async function grant(command: GrantCommand, runtime: Runtime, io: CliIo): Promise<void> {
  switch (command.kind) {
    case "grant-create": {
      const { grant, pointsBalance, replayed } = await createGrant(runtime, command.organizationId, {
        points: command.points,
        reason: command.reason,
        reference: command.reference,
        expiresAt: command.expiresAt ?? null,
        expiresInDays: command.expiresInDays,
      });
      if (command.json) {
        return printJson(io, {
          grant_id: grant.id,
          organization_id: grant.organizationId,
          points: grant.points,
          reason: grant.reason,
          reference: grant.reference,
          expires_at: grant.expiresAt?.toISOString() ?? null,
          points_balance: pointsBalance,
        });
      }
      return io.stdout(
        [
          `${replayed ? "Already granted" : "Granted"} ${formatPoints(grant.points)} promotional Points to ${grant.organizationId}: ${grant.id}.`,
          `  reason:   ${grant.reason}`,
          `  expires:  ${grant.expiresAt ? formatDateTime(grant.expiresAt) : "never"}`,
          `  balance:  ${formatPoints(pointsBalance)} Points`,
          "",
        ].join("\n"),
      );
    }
    case "grant-void": {
      const { grant, voidedPoints } = await voidGrant(runtime, command.grantId);
      if (command.json) return printJson(io, { grant_id: grant.id, voided_points: voidedPoints });
      return io.stdout(
        `Voided grant ${grant.id} of ${grant.organizationId}: ${formatPoints(voidedPoints)} Points taken back (what was left of it).\n`,
      );
    }
    case "grant-list": {
      const organization = await getOrganization(runtime.db, command.organizationId);
      if (!organization) throw new CommandRefused(`No organisation ${command.organizationId}.`);
      const grants = await listGrants(runtime.db, organization.id, runtime.clock.now());
      const rows = grants.map(({ grant, remaining, status }) => ({
        grant_id: grant.id,
        points: grant.points,
        remaining,
        reason: grant.reason,
        expires_at: grant.expiresAt?.toISOString() ?? null,
        status,
      }));
      if (command.json) return printJson(io, { grants: rows });
      if (rows.length === 0) return io.stdout(`No grants for ${organization.id}.\n`);
      return io.stdout(
        `${rows
          .map(
            (row) =>
              `${row.grant_id}  ${row.status.padEnd(7)} ${formatPoints(row.remaining)} of ${formatPoints(row.points)} left  ${row.expires_at ?? "never expires"}  ${row.reason}`,
          )
          .join("\n")}\n`,
      );
    }
  }
}
