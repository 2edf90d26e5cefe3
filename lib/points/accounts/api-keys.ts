import { createHash } from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { hotQuery, rowReader, selectColumns } from "@/lib/db/hot";
import { apiKeys, type Organization, organizations, UNNAMED_API_KEY } from "@/lib/db/schema";
import { newId, randomString } from "@/lib/ids";
import { setRequestCaller } from "@/lib/observability/context";
import { recordAudit } from "../audit";
import { PointsError, ProvisioningError } from "../errors";

const KEY_PREFIX = "pts_";
const KEY_PATTERN = /^pts_[A-Za-z0-9]{40}$/;
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/**
 * What a key may do: `purchase` (everything, the default), `spend` (every GET, the quote and
 * spends, never a purchase) or `read` (every GET and the quote).
 */
export const API_KEY_SCOPES = ["purchase", "spend", "read"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The largest daily Points cap a key can carry: the database's integer. */
export const MAX_KEY_DAILY_POINTS_CAP = 2_147_483_647;

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return typeof value === "string" && (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** A stored scope; the column's check allows only the three, and anything else reads as the narrowest. */
function storedScope(value: string): ApiKeyScope {
  return value === "purchase" || value === "spend" ? value : "read";
}

/** The longest name a key can have, in characters (Unicode code points, as Postgres counts them). */
export const MAX_KEY_NAME_LENGTH = 100;

export interface ApiKeyOptions {
  /**
   * What the key is for, shown beside its prefix; trimmed. Omitted: "Unnamed key" (an operator's
   * `key create` without --name, an organisation's first key). Given, it must be a real name.
   */
  name?: string;
  /** Omitted: `purchase`, as every key made before scopes existed. */
  scope?: ApiKeyScope;
  /** Omitted or null: no cap of its own (the organisation's limits still apply). */
  dailyPointsCap?: number | null;
}

export interface CreatedApiKey {
  keyId: string;
  name: string;
  /** The whole key: shown once, never stored. */
  apiKey: string;
  prefix: string;
  scope: ApiKeyScope;
  dailyPointsCap: number | null;
}

/**
 * A key's name as given, trimmed, or what is wrong with it (a phrase that follows the field's
 * name): 1 to 100 characters, none of them a control character (a line break, a tab, an escape),
 * since the name is printed to operators' terminals and into CSV as well as shown on pages.
 */
export function checkApiKeyName(given: string): { name: string } | { problem: string } {
  const name = given.trim();
  const length = [...name].length;
  if (length === 0) return { problem: "must not be empty" };
  if (length > MAX_KEY_NAME_LENGTH)
    return { problem: `must be at most ${MAX_KEY_NAME_LENGTH} characters, not ${length}` };
  if (/\p{Cc}/u.test(name)) return { problem: "must be one line of text, without tabs or control characters" };
  return { name };
}

/** The one check of a new key's options, for the dashboard and the operator command alike. */
function checkApiKeyOptions(options: ApiKeyOptions): {
  name: string;
  scope: ApiKeyScope;
  dailyPointsCap: number | null;
} {
  const fields: Record<string, string> = {};
  const checkedName = checkApiKeyName(options.name ?? UNNAMED_API_KEY);
  if ("problem" in checkedName) fields.name = checkedName.problem;
  const scope = options.scope ?? "purchase";
  if (!isApiKeyScope(scope)) fields.scope = "must be purchase, spend or read";
  const cap = options.dailyPointsCap ?? null;
  if (cap !== null && (!Number.isSafeInteger(cap) || cap < 1 || cap > MAX_KEY_DAILY_POINTS_CAP)) {
    fields.dailyPointsCap = `must be a whole number of Points from 1 to ${MAX_KEY_DAILY_POINTS_CAP}`;
  } else if (cap !== null && scope !== "purchase") {
    fields.dailyPointsCap = `must be empty for a ${scope} key: it cannot buy, so it has no daily Points to cap`;
  }
  if (Object.keys(fields).length > 0) {
    throw new ProvisioningError("The key's name, scope or daily Points cap is not valid; nothing was created.", {
      fields,
    });
  }
  return { name: "name" in checkedName ? checkedName.name : UNNAMED_API_KEY, scope, dailyPointsCap: cap };
}

export async function createApiKey(
  db: Db,
  organizationId: string,
  clock: Clock,
  options: ApiKeyOptions = {},
): Promise<CreatedApiKey> {
  const { name, scope, dailyPointsCap } = checkApiKeyOptions(options);
  const apiKey = `${KEY_PREFIX}${randomString(40)}`;
  const keyId = newId("apiKey");
  const prefix = apiKey.slice(0, 12);
  const now = clock.now();
  await db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({
      id: keyId,
      organizationId,
      name,
      prefix,
      hash: hashApiKey(apiKey),
      createdAt: now,
      scope,
      dailyPointsCap,
    });
    await recordAudit(tx, {
      organizationId,
      action: "api_key.created",
      target: keyId,
      after: { name, prefix, scope, daily_points_cap: dailyPointsCap },
      at: now,
    });
  });
  return { keyId, name, apiKey, prefix, scope, dailyPointsCap };
}

/** Revokes a key; false when there is no such key or it was already revoked. */
export async function revokeApiKey(db: Db, keyId: string, clock: Clock, organizationId?: string): Promise<boolean> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(
        and(
          eq(apiKeys.id, keyId),
          isNull(apiKeys.revokedAt),
          organizationId ? eq(apiKeys.organizationId, organizationId) : undefined,
        ),
      )
      .returning();
    if (!revoked) return false;
    await recordAudit(tx, {
      organizationId: revoked.organizationId,
      action: "api_key.revoked",
      target: keyId,
      before: {
        name: revoked.name,
        prefix: revoked.prefix,
        scope: revoked.scope,
        daily_points_cap: revoked.dailyPointsCap,
      },
      at: now,
    });
    return true;
  });
}

const invalidKey = () =>
  new PointsError(
    "invalid_api_key",
    "The API key is missing, malformed, unknown or revoked: send `Authorization: Bearer <API key>` with an active key.",
  );

/** The key a request was made with: what it may do, and its own daily cap. */
export interface ApiKeyGrant {
  id: string;
  scope: ApiKeyScope;
  dailyPointsCap: number | null;
}

/** Who is calling: the organisation and the key it was authenticated with. */
export interface ApiCaller {
  organization: Organization;
  key: ApiKeyGrant;
}

const readOrganization = rowReader(organizations, "org_");
/** The key by its hash, with its organisation: one statement, asked on every API request. */
const FIND_CALLER_SQL = `select k.id as key_id, k.scope as key_scope, k.daily_points_cap as key_daily_points_cap,
  k.last_used_at as key_last_used_at, ${selectColumns(organizations, "o", "org_")}
from api_keys k join organizations o on o.id = k.organization_id
where k.hash = $1 and k.revoked_at is null`;

/** Step 1 of docs/contract.md §4: the organisation and key behind `Authorization: Bearer <key>`, or 403. */
async function findApiCaller(db: Db, authorization: string | null, clock: Clock): Promise<ApiCaller> {
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
  const key = match?.[1];
  if (!key || !KEY_PATTERN.test(key)) throw invalidKey();
  const [row] = await hotQuery(db, FIND_CALLER_SQL, [hashApiKey(key)]);
  if (!row) throw invalidKey();
  const found = {
    organization: readOrganization(row),
    keyId: row.key_id as string,
    scope: row.key_scope as string,
    dailyPointsCap: row.key_daily_points_cap as number | null,
    lastUsedAt:
      row.key_last_used_at === null ? null : (apiKeys.lastUsedAt.mapFromDriverValue(row.key_last_used_at) as Date),
  };
  if (!found) throw invalidKey();
  const now = clock.now();
  if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    // Throttled so that a busy key does not turn every request into a write.
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, found.keyId));
  }
  setRequestCaller({ organizationId: found.organization.id, apiKeyId: found.keyId });
  return {
    organization: found.organization,
    key: { id: found.keyId, scope: storedScope(found.scope), dailyPointsCap: found.dailyPointsCap },
  };
}

/** Step 1 alone: the organisation behind the key, or 403. */
export async function authenticateApiKey(db: Db, authorization: string | null, clock: Clock): Promise<Organization> {
  return (await findApiCaller(db, authorization, clock)).organization;
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

/** Steps 1 to 3 together, as every REST endpoint begins; both scopes pass. */
export async function authenticateApiRequest(
  db: Db,
  authorization: string | null,
  clock: Clock,
): Promise<Organization> {
  return (await authenticateApiCaller(db, authorization, clock)).organization;
}

/** Steps 1 to 3, keeping the key: for the quote, which any scope may ask for but a key's cap governs. */
export async function authenticateApiCaller(db: Db, authorization: string | null, clock: Clock): Promise<ApiCaller> {
  const caller = await findApiCaller(db, authorization, clock);
  assertApiAccess(caller.organization);
  return caller;
}

/** Steps 1 to 4 of a purchase: steps 1 to 3, then 403 insufficient_scope for a read or spend key. */
export async function authenticateApiPurchase(db: Db, authorization: string | null, clock: Clock): Promise<ApiCaller> {
  const caller = await authenticateApiCaller(db, authorization, clock);
  if (caller.key.scope !== "purchase") {
    const what =
      caller.key.scope === "spend" ? "a spend key: it may read, quote and spend" : "read-only: it may read and quote";
    throw new PointsError(
      "insufficient_scope",
      `This API key is ${what} but not buy; use a key with the purchase scope.`,
      { details: { scope: caller.key.scope, required_scope: "purchase" } },
    );
  }
  return caller;
}

/** Steps 1 to 4 of a spend: steps 1 to 3, then 403 insufficient_scope for a read key. */
export async function authenticateApiSpend(db: Db, authorization: string | null, clock: Clock): Promise<ApiCaller> {
  const caller = await authenticateApiCaller(db, authorization, clock);
  if (caller.key.scope === "read") {
    throw new PointsError(
      "insufficient_scope",
      "This API key is read-only: it may read and quote but not spend; use a key with the spend or purchase scope.",
      { details: { scope: caller.key.scope, required_scope: "spend" } },
    );
  }
  return caller;
}

export interface ApiKeySummary {
  id: string;
  name: string;
  /** The first characters of the key, enough to recognise it; the rest is never stored. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  scope: ApiKeyScope;
  dailyPointsCap: number | null;
}

/** The organisation's keys for the dashboard, active ones first, newest first within each group. */
export async function listApiKeys(db: Db, organizationId: string): Promise<ApiKeySummary[]> {
  const rows = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
      scope: apiKeys.scope,
      dailyPointsCap: apiKeys.dailyPointsCap,
    })
    .from(apiKeys)
    .where(eq(apiKeys.organizationId, organizationId))
    .orderBy(sql`${apiKeys.revokedAt} is not null`, desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map((row) => ({ ...row, scope: storedScope(row.scope) }));
}
