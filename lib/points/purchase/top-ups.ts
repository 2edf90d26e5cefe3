import { and, desc, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { type TopUp, topUps } from "@/lib/db/schema";

/** One of the organisation's top-ups; another organisation's ID is simply not found. */
export async function getTopUp(db: Db, organizationId: string, topUpId: string): Promise<TopUp | undefined> {
  const [row] = await db
    .select()
    .from(topUps)
    .where(and(eq(topUps.id, topUpId), eq(topUps.organizationId, organizationId)));
  return row;
}

/** The organisation's top-up made under `reference`, if one was: a reference names one purchase for good. */
export async function getTopUpByReference(
  db: Db,
  organizationId: string,
  reference: string,
): Promise<TopUp | undefined> {
  const [row] = await db
    .select()
    .from(topUps)
    .where(and(eq(topUps.organizationId, organizationId), eq(topUps.reference, reference)));
  return row;
}

/** The bundle of the organisation's latest paid purchase, if it has one. */
export async function lastPaidPoints(db: Db, organizationId: string): Promise<number | undefined> {
  const [row] = await db
    .select({ points: topUps.points })
    .from(topUps)
    .where(and(eq(topUps.organizationId, organizationId), eq(topUps.status, "paid")))
    .orderBy(desc(topUps.createdAt), desc(topUps.id))
    .limit(1);
  return row?.points;
}
