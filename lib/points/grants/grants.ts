import { and, asc, eq, sql } from "drizzle-orm";
import { REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { type Grant, grants, organizations, pointLots } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { recordAudit } from "../audit";
import { recordMovement } from "../balance/ledger";
import { ProvisioningError } from "../errors";
import { DAY_MS } from "../limits/limits";
import { deferRecharge } from "../recharge/auto-recharge";
import type { Services } from "../services";

/*
 * Grants of promotional Points (docs/contract.md §10): the operator's alone, never an organisation
 * key's. Each grant's Points are a promotional lot of their own, spent before paid Points of the
 * same expiry, never refunded, never on a receipt, and not counted by max_points_balance.
 */

export const MAX_GRANT_POINTS = 1_000_000;
export const MAX_GRANT_REASON_LENGTH = 200;

export interface GrantInput {
  points: number;
  reason: string;
  /** The operator's id for it, unique per organisation: the same again is the same grant. */
  reference?: string;
  /** When what is left of it leaves the balance; omitted or null: never. */
  expiresAt?: Date | null;
  /** Or so many days from when it is made: the same reference again with the same days replays it. */
  expiresInDays?: number;
}

export type GrantStatus = "active" | "expired" | "voided" | "used";

export interface GrantView {
  grant: Grant;
  /** Its Points not yet spent, voided or expired. */
  remaining: number;
  status: GrantStatus;
}

/** Every problem with a grant's terms at once, by field, as the operator wrote them. */
function checkGrant(input: GrantInput, now: Date): { points: number; reason: string; reference: string | null } {
  const fields: Record<string, string> = {};
  if (!Number.isInteger(input.points) || input.points < 1 || input.points > MAX_GRANT_POINTS) {
    fields.points = `must be a whole number of Points from 1 to ${MAX_GRANT_POINTS.toLocaleString("en-US")}.`;
  }
  const reason = input.reason.trim();
  if (reason.length < 1 || [...reason].length > MAX_GRANT_REASON_LENGTH) {
    fields.reason = `must be 1 to ${MAX_GRANT_REASON_LENGTH} characters saying why the Points are given.`;
  }
  const reference = input.reference ?? null;
  if (reference !== null && (reference.length > REFERENCE_MAX_LENGTH || !REFERENCE_PATTERN.test(reference))) {
    fields.reference = `must be 1 to ${REFERENCE_MAX_LENGTH} letters, digits, '.', '_', ':' or '-'.`;
  }
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    fields.expiresAt = "must be in the future: Points cannot be given already expired.";
  }
  if (Object.keys(fields).length > 0) {
    const [first] = Object.entries(fields);
    throw new ProvisioningError(`The grant's ${first?.[0]} ${first?.[1]}`, { fields });
  }
  return { points: input.points, reason, reference };
}

/**
 * Gives an organisation promotional Points: its grant, its lot and its ledger row, with the audit
 * entry, in one transaction under the organisation's row lock. The same reference again answers the
 * same grant (`replayed`); with other terms it is refused and nothing changes.
 */
export async function createGrant(
  services: Services,
  organizationId: string,
  input: GrantInput,
): Promise<{ grant: Grant; pointsBalance: number; replayed: boolean }> {
  const now = services.clock.now();
  const expiresAt =
    input.expiresInDays !== undefined
      ? new Date(now.getTime() + input.expiresInDays * DAY_MS)
      : (input.expiresAt ?? null);
  const terms = checkGrant({ ...input, expiresAt }, now);
  return services.db.transaction(async (tx) => {
    const [org] = await tx
      .select({ id: organizations.id, pointsBalance: organizations.pointsBalance })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for("update");
    if (!org) throw new ProvisioningError(`No organisation ${organizationId}.`);
    if (terms.reference !== null) {
      const [earlier] = await tx
        .select()
        .from(grants)
        .where(and(eq(grants.organizationId, organizationId), eq(grants.reference, terms.reference)));
      if (earlier) {
        // A relative expiry is the same when it was the same number of days from the grant's making.
        const sameExpiry =
          input.expiresInDays !== undefined
            ? earlier.expiresAt !== null &&
              Math.abs(earlier.expiresAt.getTime() - earlier.createdAt.getTime() - input.expiresInDays * DAY_MS) < 1000
            : (earlier.expiresAt?.getTime() ?? null) === (expiresAt?.getTime() ?? null);
        const same = earlier.points === terms.points && earlier.reason === terms.reason && sameExpiry;
        if (!same) {
          throw new ProvisioningError(
            `Grant ${earlier.id} already has the reference ${terms.reference} with other terms; nothing was changed. Use a new reference for a new grant.`,
            { fields: { reference: "is already the reference of a grant with other terms." } },
          );
        }
        return { grant: earlier, pointsBalance: org.pointsBalance, replayed: true };
      }
    }
    const [grant] = await tx
      .insert(grants)
      .values({
        organizationId,
        id: newId("grant"),
        points: terms.points,
        reason: terms.reason,
        reference: terms.reference,
        expiresAt,
        createdAt: now,
      })
      .returning();
    if (!grant) throw new Error("The grant was not written.");
    const moved = await recordMovement(tx, {
      organizationId,
      topUpId: null,
      kind: "grant",
      causeId: grant.id,
      grantLot: { points: grant.points, expiresAt },
      now,
    });
    await recordAudit(tx, {
      organizationId,
      action: "grant.created",
      target: grant.id,
      after: {
        points: grant.points,
        reason: grant.reason,
        reference: grant.reference,
        expires_at: expiresAt?.toISOString() ?? null,
      },
      at: now,
    });
    return { grant, pointsBalance: moved.pointsBalance, replayed: false };
  });
}

/**
 * Takes back what is left of a grant (spent Points stay spent): its lot emptied, audited. Voiding
 * it again answers what the first void took.
 */
export async function voidGrant(services: Services, grantId: string): Promise<{ grant: Grant; voidedPoints: number }> {
  const now = services.clock.now();
  const [found] = await services.db.select().from(grants).where(eq(grants.id, grantId));
  if (!found) throw new ProvisioningError(`No grant ${grantId}.`);
  const result = await services.db.transaction(async (tx) => {
    await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, found.organizationId))
      .for("update");
    const [grant] = await tx
      .select()
      .from(grants)
      .where(and(eq(grants.organizationId, found.organizationId), eq(grants.id, grantId)));
    if (!grant) throw new ProvisioningError(`No grant ${grantId}.`);
    if (grant.voidedAt) return { grant, voidedPoints: grant.voidedPoints ?? 0, rechargeDue: false };
    const moved = await recordMovement(tx, {
      organizationId: grant.organizationId,
      topUpId: null,
      kind: "grant_void",
      causeId: grant.id,
      emptyLot: `lot_${grant.id}`,
      now,
    });
    const voidedPoints = -moved.delta;
    const [voided] = await tx
      .update(grants)
      .set({ voidedAt: now, voidedPoints })
      .where(and(eq(grants.organizationId, grant.organizationId), eq(grants.id, grant.id)))
      .returning();
    await recordAudit(tx, {
      organizationId: grant.organizationId,
      action: "grant.voided",
      target: grant.id,
      before: { points: grant.points },
      after: { voided_points: voidedPoints },
      at: now,
    });
    return { grant: voided ?? grant, voidedPoints, rechargeDue: moved.rechargeDue };
  });
  if (result.rechargeDue) deferRecharge(services, found.organizationId);
  return { grant: result.grant, voidedPoints: result.voidedPoints };
}

/** A grant's state: voided, else expired once its time is past, else used once nothing is left, else active. */
export function grantStatus(grant: Pick<Grant, "voidedAt" | "expiresAt">, remaining: number, now: Date): GrantStatus {
  if (grant.voidedAt) return "voided";
  if (grant.expiresAt && grant.expiresAt.getTime() <= now.getTime()) return "expired";
  return remaining === 0 ? "used" : "active";
}

/** An organisation's grants, oldest first, each with what is left of it and its state. */
export async function listGrants(db: Db, organizationId: string, now: Date): Promise<GrantView[]> {
  const rows = await db
    .select({ grant: grants, remaining: sql<number>`coalesce(${pointLots.remaining}, 0)` })
    .from(grants)
    .leftJoin(pointLots, and(eq(pointLots.organizationId, grants.organizationId), eq(pointLots.grantId, grants.id)))
    .where(eq(grants.organizationId, organizationId))
    .orderBy(asc(grants.createdAt), asc(grants.id));
  return rows.map(({ grant, remaining }) => {
    const left = Number(remaining);
    return { grant, remaining: left, status: grantStatus(grant, left, now) };
  });
}
