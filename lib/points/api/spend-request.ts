import { z } from "zod";
import { REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "@/lib/catalog";
import { limitParameter, oneCursor, parseStrictQuery, referenceParameter } from "./query-params";
import { parseBody } from "./request-fields";

export const MAX_SPEND_POINTS = 1_000_000;
export const MAX_SPEND_DESCRIPTION_LENGTH = 200;

/** A spend after validation. */
export interface SpendRequest {
  points: number;
  reference: string;
  /** Omitted or null: none. */
  description?: string;
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
  const { points, reference, description } = parseBody(spendRequestSchema, body, {
    rules: fieldMessages,
    missing: (_field, rule) => `is required: ${rule ?? "a value"}`,
    unknown: () => "is not an accepted field",
  });
  return { points, reference, description: description ?? undefined };
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
  limit: limitParameter(MAX_SPEND_LIST_LIMIT, DEFAULT_SPEND_LIST_LIMIT),
  starting_after: spendId
    .optional()
    .meta({ description: "A spend id: answer the ones older than it (the next page)." }),
  ending_before: spendId.optional().meta({
    description: "A spend id: answer the ones newer than it (the previous page). Not with `starting_after`.",
  }),
  reference: referenceParameter("Only the spend with this reference (exact, case-sensitive)."),
});

export interface SpendListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  reference?: string;
}

/** Validates GET /v3/points/spends's query strictly, as the top-ups list's is. */
export function parseSpendListQuery(params: URLSearchParams): SpendListQuery {
  const query = parseStrictQuery(spendListQuerySchema, params, parameterMessages, oneCursor);
  return {
    limit: query.limit ?? DEFAULT_SPEND_LIST_LIMIT,
    startingAfter: query.starting_after,
    endingBefore: query.ending_before,
    reference: query.reference,
  };
}
