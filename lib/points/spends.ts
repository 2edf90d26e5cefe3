import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "@/lib/catalog";
import type { Db } from "@/lib/db/client";
import { organizations, type Spend, spends } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { recordAudit } from "./audit";
import { PointsError } from "./errors";
import { emitEvent } from "./events";
import { recordMovement } from "./ledger";
import { invalidQuery, parseStrictQuery } from "./query-params";
import type { SpendJson } from "./schemas";
import type { Services } from "./services";

export const MAX_SPEND_POINTS = 1_000_000;
export const MAX_SPEND_DESCRIPTION_LENGTH = 200;

/** Where a spend came from: an API key, or the operator command. */
export type SpendSource = "api" | "operator";

/** A spend after validation. */
export interface SpendRequest {
  points: number;
  reference: string;
  /** Omitted or null: none. */
  description?: string;
}

export interface SpendResult {
  spend: Spend;
  /** The spendable balance now. */
  pointsBalance: number;
  /** True when the reference had spent already with the same terms: nothing was spent again. */
  replayed: boolean;
  /** True when this spend took the balance below the auto-recharge level: run runDueRecharge after it. */
  rechargeDue: boolean;
}

/** The Spend object of the API, the feed and the webhooks. */
export function toSpendJson(spend: Spend): SpendJson {
  return {
    id: spend.id,
    reference: spend.reference,
    points: spend.points,
    description: spend.description,
    created_at: spend.createdAt.toISOString(),
  };
}

const fieldMessages = {
  points: `must be a whole number of Points from 1 to ${MAX_SPEND_POINTS.toLocaleString("en-US")}`,
  reference: `must be 1 to ${REFERENCE_MAX_LENGTH} letters, digits, '.', '_', ':' or '-', unique per spend`,
  description: `must be text of at most ${MAX_SPEND_DESCRIPTION_LENGTH} characters, or omitted`,
} as const;

/** POST /v3/points/spends's body: the parser below and the OpenAPI document both read it. */
export const spendRequestSchema = z
  .strictObject({
    points: z.number().int().min(1).max(MAX_SPEND_POINTS).meta({
      description: "Points to take from the spendable balance (held Points cannot be spent).",
      example: 120,
    }),
    reference: z.string().min(1).max(REFERENCE_MAX_LENGTH).regex(REFERENCE_PATTERN).meta({
      description:
        "Your id for this spend, unique per organisation: retrying with it never spends twice. Spends and top-ups have references of their own.",
      example: "job-8812",
    }),
    description: z.string().max(MAX_SPEND_DESCRIPTION_LENGTH).nullish().meta({
      description: "What the Points paid for, as you want to read it later; omit (or null) for none.",
      example: "Report generation",
    }),
  })
  .meta({ id: "SpendRequest" });

/** Validates a spend's body strictly, naming every offending field at once in details.fields. */
export function parseSpendRequest(body: unknown): SpendRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidSpend({ body: "must be a JSON object" });
  }
  const parsed = spendRequestSchema.safeParse(body);
  if (parsed.success) {
    const { points, reference, description } = parsed.data;
    return { points, reference, description: description ?? undefined };
  }
  const fields = Object.create(null) as Record<string, string>;
  for (const issue of parsed.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) fields[key] = "is not an accepted field";
      continue;
    }
    const field = String(issue.path[0] ?? "body");
    const message = fieldMessages[field as keyof typeof fieldMessages] ?? "is invalid";
    fields[field] ??= (body as Record<string, unknown>)[field] === undefined ? `is required: ${message}` : message;
  }
  throw invalidSpend(fields);
}

function invalidSpend(fields: Record<string, string>): PointsError {
  const names = Object.keys(fields).map((name) => `\`${name}\``);
  return new PointsError("invalid_request", `The request is invalid: check ${names.join(", ")} and send it again.`, {
    details: { fields },
  });
}

/**
 * Spends Points, idempotently by reference: the organisation's row is locked first (as every
 * writer of its balance does), so spends of one organisation run one after another and a reference
 * is looked up after any earlier spend with it has committed. The spend, its ledger row, its event
 * and its audit entry are one transaction; a refusal changes nothing.
 */
export async function spendPoints(
  services: Services,
  input: { organizationId: string; request: SpendRequest; source: SpendSource; apiKeyId?: string },
): Promise<SpendResult> {
  const { organizationId, request } = input;
  return services.db.transaction(async (tx) => {
    const [org] = await tx
      .select({ pointsBalance: organizations.pointsBalance, heldPoints: organizations.heldPoints })
      .from(organizations)
      .where(eq(organizations.id, organizationId))
      .for("update");
    if (!org) throw new PointsError("not_found", `No organisation ${organizationId}.`);
    const [earlier] = await tx
      .select()
      .from(spends)
      .where(and(eq(spends.organizationId, organizationId), eq(spends.reference, request.reference)));
    if (earlier) return replay(earlier, request, org.pointsBalance);
    if (org.pointsBalance < request.points) {
      throw new PointsError(
        "insufficient_points",
        `The organisation has ${org.pointsBalance} Points to spend, not ${request.points} (held Points cannot be spent); nothing was spent.`,
        { details: { points_balance: org.pointsBalance, held_points: org.heldPoints, points: request.points } },
      );
    }
    const now = services.clock.now();
    const id = newId("spend");
    const moved = await recordMovement(tx, {
      organizationId,
      topUpId: null,
      kind: "usage",
      causeId: id,
      take: request.points,
      now,
    });
    const [spend] = await tx
      .insert(spends)
      .values({
        organizationId,
        id,
        reference: request.reference,
        points: request.points,
        description: request.description ?? null,
        source: input.source,
        apiKeyId: input.apiKeyId ?? null,
        balanceAfter: moved.pointsBalance,
        createdAt: now,
      })
      .returning();
    if (!spend) throw new Error(`Spend ${id} was not written.`);
    await emitEvent(
      tx,
      organizationId,
      "points.spent",
      { spend: toSpendJson(spend), points_balance: moved.pointsBalance },
      now,
    );
    await recordAudit(tx, {
      organizationId,
      action: "points.spent",
      target: id,
      before: { points_balance: org.pointsBalance },
      after: { points_balance: moved.pointsBalance, points: request.points, reference: request.reference },
      at: now,
    });
    return { spend, pointsBalance: moved.pointsBalance, replayed: false, rechargeDue: moved.rechargeDue };
  });
}

/** The same reference again: the same spend when the terms match, else a conflict. */
function replay(earlier: Spend, request: SpendRequest, pointsBalance: number): SpendResult {
  const differs: string[] = [];
  if (earlier.points !== request.points) differs.push("points");
  if ((earlier.description ?? null) !== (request.description ?? null)) differs.push("description");
  if (differs.length > 0) {
    throw new PointsError(
      "reference_conflict",
      `A spend with this reference already exists with other ${differs.join(" and ")}; use a new reference for a new spend.`,
      { details: { spend: toSpendJson(earlier), points_balance: pointsBalance, fields: differs } },
    );
  }
  return { spend: earlier, pointsBalance, replayed: true, rechargeDue: false };
}

export const DEFAULT_SPEND_LIST_LIMIT = 20;
export const MAX_SPEND_LIST_LIMIT = 100;

/** The shape of a spend's ID: anything else is no spend (and is never sent to the database). */
const SPEND_ID = /^sp_[A-Za-z0-9_]{1,64}$/;
const spendId = z.string().regex(SPEND_ID);

const parameterMessages = {
  limit: `must be a whole number from 1 to ${MAX_SPEND_LIST_LIMIT}`,
  starting_after: "must be the ID of one of the organisation's spends (sp_…)",
  ending_before: "must be the ID of one of the organisation's spends (sp_…)",
  reference: `must be 1 to ${REFERENCE_MAX_LENGTH} letters, digits, '.', '_', ':' or '-'`,
} as const;

/** GET /v3/points/spends's query: the parser below and the OpenAPI document both read it. */
export const spendListQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_SPEND_LIST_LIMIT))
    .optional()
    .meta({
      description: `How many to answer, 1 to ${MAX_SPEND_LIST_LIMIT}.`,
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, {
          type: "integer",
          minimum: 1,
          maximum: MAX_SPEND_LIST_LIMIT,
          default: DEFAULT_SPEND_LIST_LIMIT,
        });
      },
    }),
  starting_after: spendId
    .optional()
    .meta({ description: "A spend id: answer the ones older than it (the next page)." }),
  ending_before: spendId.optional().meta({
    description: "A spend id: answer the ones newer than it (the previous page). Not with `starting_after`.",
  }),
  reference: z
    .string()
    .min(1)
    .max(REFERENCE_MAX_LENGTH)
    .regex(REFERENCE_PATTERN)
    .optional()
    .meta({ description: "Only the spend with this reference (exact, case-sensitive)." }),
});

export interface SpendListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  reference?: string;
}

/** Validates GET /v3/points/spends's query strictly, as the top-ups list's is. */
export function parseSpendListQuery(params: URLSearchParams): SpendListQuery {
  const query = parseStrictQuery(spendListQuerySchema, params, parameterMessages, (values, fields) => {
    if (values.starting_after !== undefined && values.ending_before !== undefined) {
      const both = "cannot be combined with the other cursor: send starting_after or ending_before, not both";
      fields.starting_after ??= both;
      fields.ending_before ??= both;
    }
  });
  return {
    limit: query.limit ?? DEFAULT_SPEND_LIST_LIMIT,
    startingAfter: query.starting_after,
    endingBefore: query.ending_before,
    reference: query.reference,
  };
}

/**
 * One page of the organisation's spends, newest first. A cursor names a spend of this
 * organisation: another's, or an unknown one, is a bad parameter, in the same words.
 */
export async function listSpends(
  db: Db,
  organizationId: string,
  query: SpendListQuery,
): Promise<{ spends: Spend[]; hasMore: boolean }> {
  const cursorName =
    query.startingAfter !== undefined ? "starting_after" : query.endingBefore !== undefined ? "ending_before" : null;
  let cursor: Spend | undefined;
  if (cursorName) {
    [cursor] = await db
      .select()
      .from(spends)
      .where(
        and(eq(spends.organizationId, organizationId), eq(spends.id, query.startingAfter ?? query.endingBefore ?? "")),
      );
    if (!cursor) throw invalidQuery({ [cursorName]: "is not the ID of one of the organisation's spends" });
  }
  const newer = cursorName === "ending_before";
  const position = cursor ? sql`(${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})` : undefined;
  const rows = await db
    .select()
    .from(spends)
    .where(
      and(
        eq(spends.organizationId, organizationId),
        query.reference !== undefined ? eq(spends.reference, query.reference) : undefined,
        position
          ? newer
            ? sql`(${spends.createdAt}, ${spends.id}) > ${position}`
            : sql`(${spends.createdAt}, ${spends.id}) < ${position}`
          : undefined,
      ),
    )
    .orderBy(newer ? sql`${spends.createdAt} asc, ${spends.id} asc` : sql`${spends.createdAt} desc, ${spends.id} desc`)
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return { spends: newer ? page.reverse() : page, hasMore: rows.length > query.limit };
}
