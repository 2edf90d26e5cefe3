import { eq } from "drizzle-orm";
import { organizations } from "@/lib/db/schema";
import { recordAudit } from "./audit";
import { PointsError } from "./errors";
import { recordMovement } from "./ledger";
import type { Services } from "./services";

/**
 * Records Points spent (the operator's `org spend`): whatever the Points buy is run elsewhere, and
 * this brings the balance here in line. Never more than the spendable balance: held Points cannot be spent.
 */
export async function spendPoints(
  services: Services,
  organizationId: string,
  points: number,
): Promise<{ pointsBalance: number }> {
  if (!Number.isInteger(points) || points <= 0) {
    throw new PointsError("invalid_request", "Points to spend must be a whole number above zero.", {
      details: { fields: { points: "must be a whole number above zero" } },
    });
  }
  return services.db.transaction(async (tx) => {
    const [org] = await tx
      .select({ pointsBalance: organizations.pointsBalance })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for("update");
    if (!org) throw new PointsError("not_found", `No organisation ${organizationId}.`);
    if (org.pointsBalance < points) {
      throw new PointsError(
        "invalid_request",
        `Organisation ${organizationId} has ${org.pointsBalance} Points to spend, not ${points}.`,
        {
          details: { fields: { points: `at most ${org.pointsBalance}` } },
        },
      );
    }
    const now = services.clock.now();
    const moved = await recordMovement(tx, {
      organizationId,
      topUpId: null,
      kind: "usage",
      causeId: null,
      take: points,
      now,
    });
    await recordAudit(tx, {
      organizationId,
      action: "points.spent",
      target: organizationId,
      before: { points_balance: org.pointsBalance },
      after: { points_balance: moved.pointsBalance, points },
      at: now,
    });
    return { pointsBalance: moved.pointsBalance };
  });
}
