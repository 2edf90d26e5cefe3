import { z } from "zod";
import { DEFAULT_EVENTS_LIMIT, MAX_EVENTS_LIMIT } from "../events/events";
import { parseStrictQuery } from "./query-params";

/** GET /v3/points/events's query: the parser below and the OpenAPI document both read it. */
export const eventListQuerySchema = z.strictObject({
  after: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
    .optional()
    .meta({
      description: "A sequence number: answer the events after it (default 0, from the first).",
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: "integer", minimum: 0, default: 0 });
      },
    }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_EVENTS_LIMIT))
    .optional()
    .meta({
      description: `How many to answer, 1 to ${MAX_EVENTS_LIMIT}.`,
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, {
          type: "integer",
          minimum: 1,
          maximum: MAX_EVENTS_LIMIT,
          default: DEFAULT_EVENTS_LIMIT,
        });
      },
    }),
});

const messages = {
  after: "must be a whole number, 0 or more: the last sequence number you have",
  limit: `must be a whole number from 1 to ${MAX_EVENTS_LIMIT}`,
} as const;

/** Validates the feed's query strictly, naming every offending parameter at once in details.fields. */
export function parseEventListQuery(params: URLSearchParams): { after: number; limit: number } {
  const query = parseStrictQuery(eventListQuerySchema, params, messages);
  return { after: query.after ?? 0, limit: query.limit ?? DEFAULT_EVENTS_LIMIT };
}
