import { eq, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, pointsLedger, type TopUp } from "@/lib/db/schema";
import { newId } from "@/lib/ids";

/**
 * Credits a paid top-up: one append-only ledger row and the balance bumped, in the caller's
 * transaction (the one marking the top-up paid). The unique top_up_id makes a second credit
 * fail instead of doubling Points. Returns the new balance.
 */
export async function creditTopUp(tx: Db, topUp: TopUp, now: Date): Promise<number> {
  const [updated] = await tx
    .update(organizations)
    .set({ pointsBalance: sql`${organizations.pointsBalance} + ${topUp.points}`, updatedAt: now })
    .where(eq(organizations.id, topUp.organizationId))
    .returning({ pointsBalance: organizations.pointsBalance });
  if (!updated) throw new Error(`Organisation ${topUp.organizationId} vanished while crediting ${topUp.id}.`);
  await tx.insert(pointsLedger).values({
    id: newId("ledger"),
    organizationId: topUp.organizationId,
    topUpId: topUp.id,
    delta: topUp.points,
    balanceAfter: updated.pointsBalance,
    reason: "top_up",
    createdAt: now,
  });
  return updated.pointsBalance;
}

export async function getPointsBalance(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ pointsBalance: organizations.pointsBalance })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row?.pointsBalance ?? 0;
}
