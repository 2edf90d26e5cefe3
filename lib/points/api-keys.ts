import { createHash } from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { apiKeys, organizations, type Organization } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import { PointsError } from "./errors";

const KEY_PREFIX = "pts_";
const KEY_PATTERN = /^pts_[A-Za-z0-9]{40}$/;
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export interface CreatedApiKey {
  keyId: string;
  /** The whole key: shown once, never stored. */
  apiKey: string;
  prefix: string;
}

export async function createApiKey(db: Db, organizationId: string, clock: Clock): Promise<CreatedApiKey> {
  const apiKey = `${KEY_PREFIX}${randomString(40)}`;
  const keyId = newId("apiKey");
  const prefix = apiKey.slice(0, 12);
  await db.insert(apiKeys).values({
    id: keyId,
    organizationId,
    prefix,
    hash: hashApiKey(apiKey),
    createdAt: clock.now(),
  });
  return { keyId, apiKey, prefix };
}

/** Revokes a key; false when there is no such key or it was already revoked. */
export async function revokeApiKey(db: Db, keyId: string, clock: Clock, organizationId?: string): Promise<boolean> {
  const revoked = await db
    .update(apiKeys)
    .set({ revokedAt: clock.now() })
    .where(
      and(
        eq(apiKeys.id, keyId),
        isNull(apiKeys.revokedAt),
        organizationId ? eq(apiKeys.organizationId, organizationId) : undefined,
      ),
    )
    .returning({ id: apiKeys.id });
  return revoked.length > 0;
}

const invalidKey = () =>
  new PointsError(
    "invalid_api_key",
    "The API key is missing, malformed, unknown or revoked: send `Authorization: Bearer <API key>` with an active key.",
  );

/** Step 1 of docs/contract.md §4: the organisation behind `Authorization: Bearer <key>`, or 403. */
export async function authenticateApiKey(
  db: Db,
  authorization: string | null,
  clock: Clock,
): Promise<Organization> {
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
  const key = match?.[1];
  if (!key || !KEY_PATTERN.test(key)) throw invalidKey();
  const [found] = await db
    .select({ organization: organizations, keyId: apiKeys.id, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
    .where(and(eq(apiKeys.hash, hashApiKey(key)), isNull(apiKeys.revokedAt)));
  if (!found) throw invalidKey();
  const now = clock.now();
  if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    // Throttled so that a busy key does not turn every request into a write.
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, found.keyId));
  }
  return found.organization;
}

/** Steps 2 and 3: eligibility (operator) before the organisation's own saved switch. */
export function assertApiAccess(organization: Organization): void {
  if (!organization.apiAvailable) {
    throw new PointsError(
      "not_available",
      "API Point top-ups are not available for this organisation; contact support to have them made available.",
    );
  }
  if (!organization.apiPurchasesEnabled) {
    throw new PointsError(
      "api_purchases_disabled",
      "API Point purchases are disabled: an admin must enable them in the dashboard's Settings and save.",
    );
  }
}

/** Steps 1 to 3 together, as both REST endpoints begin. */
export async function authenticateApiRequest(
  db: Db,
  authorization: string | null,
  clock: Clock,
): Promise<Organization> {
  const organization = await authenticateApiKey(db, authorization, clock);
  assertApiAccess(organization);
  return organization;
}

export interface ApiKeySummary {
  id: string;
  /** The first characters of the key, enough to recognise it; the rest is never stored. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The organisation's keys for the dashboard, active ones first, newest first within each group. */
export async function listApiKeys(db: Db, organizationId: string): Promise<ApiKeySummary[]> {
  const rows = await db
    .select({
      id: apiKeys.id,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.organizationId, organizationId))
    .orderBy(sql`${apiKeys.revokedAt} is not null`, desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows;
}
