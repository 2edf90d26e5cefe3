import { z } from "zod";
import {
  REFERENCE_MAX_LENGTH,
  TOP_UP_SOURCES,
  TOP_UP_STATUSES,
  type TopUpSource,
  type TopUpStatus,
} from "@/lib/catalog";
import { parseRfc3339, RFC3339_EXAMPLE, RFC3339_OFFSET_EXAMPLE, utcText } from "@/lib/rfc3339";
import { limitParameter, oneCursor, parseStrictQuery, referenceParameter } from "./query-params";

export const DEFAULT_LIST_LIMIT = 20;
export const MAX_LIST_LIMIT = 100;

/** GET /v3/points/top-ups's query after validation. */
export interface TopUpListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  reference?: string;
  status?: TopUpStatus;
  source?: TopUpSource;
  /** `created[gte]` and `created[lt]` as UTC text to the microsecond (lib/rfc3339.ts's utcText). */
  createdGte?: string;
  createdLt?: string;
}

/** The shape of a top-up ID: anything else is no top-up (and is never sent to the database). */
export const TOP_UP_ID = /^tu_[A-Za-z0-9_]{1,64}$/;

const parameterMessages = {
  limit: `must be a whole number from 1 to ${MAX_LIST_LIMIT}`,
  starting_after: "must be the ID of one of the organisation's top-ups (tu_…)",
  ending_before: "must be the ID of one of the organisation's top-ups (tu_…)",
  reference: `must be 1 to ${REFERENCE_MAX_LENGTH} letters, digits, '.', '_', ':' or '-'`,
  status: `must be one of ${TOP_UP_STATUSES.join(", ")}`,
  source: `must be one of ${TOP_UP_SOURCES.join(", ")}`,
} as const;

const topUpId = z.string().regex(TOP_UP_ID);
/**
 * An RFC 3339 date-time (lib/rfc3339.ts), any offset, to the minute at least: the instant it names,
 * as UTC text Postgres reads to the microsecond. A refusal says why in its issue's message.
 */
const instant = z.string().transform((text, ctx) => {
  const result = parseRfc3339(text);
  if (result.ok) return utcText(result.micros);
  ctx.addIssue({ code: "custom", message: result.why });
  return z.NEVER;
});
const instantMeta = (description: string) => ({
  description: `${description}: an RFC 3339 date-time in UTC or with an offset, such as \`${RFC3339_EXAMPLE}\` or \`${RFC3339_OFFSET_EXAMPLE}\` (in a URL, \`+\` is \`%2B\`); seconds may be left out.`,
  override: { type: "string", format: "date-time" },
});

/** GET /v3/points/top-ups's query: the parser below and the OpenAPI document both read it. */
export const topUpListQuerySchema = z.strictObject({
  limit: limitParameter(MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT),
  starting_after: topUpId
    .optional()
    .meta({ description: "A top-up id: answer the ones older than it (the next page)." }),
  ending_before: topUpId.optional().meta({
    description: "A top-up id: answer the ones newer than it (the previous page). Not with `starting_after`.",
  }),
  reference: referenceParameter("Only the purchase with this reference (exact, case-sensitive)."),
  status: z.enum(TOP_UP_STATUSES).optional().meta({ description: "Only purchases in this status." }),
  source: z.enum(TOP_UP_SOURCES).optional().meta({ description: "Only purchases made here." }),
  "created[gte]": instant.optional().meta(instantMeta("Only purchases made at or after this time")),
  "created[lt]": instant.optional().meta(instantMeta("Only purchases made before this time")),
});

/**
 * Validates GET /v3/points/top-ups's query strictly, naming every offending parameter at once
 * in details.fields: unknown ones, repeated ones, bad values, and both cursors together.
 */
export function parseTopUpListQuery(params: URLSearchParams): TopUpListQuery {
  const query = parseStrictQuery(topUpListQuerySchema, params, parameterMessages, oneCursor);
  return {
    limit: query.limit ?? DEFAULT_LIST_LIMIT,
    startingAfter: query.starting_after,
    endingBefore: query.ending_before,
    reference: query.reference,
    status: query.status,
    source: query.source,
    createdGte: query["created[gte]"],
    createdLt: query["created[lt]"],
  };
}
