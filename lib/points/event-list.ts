import { z } from "zod";
import { DEFAULT_EVENTS_LIMIT, MAX_EVENTS_LIMIT } from "./events";
import { invalidQuery } from "./top-up-list";

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
  const fields = Object.create(null) as Record<string, string>;
  const values = Object.create(null) as Record<string, string>;
  for (const [name, value] of params) {
    if (name in values) fields[name] = "appears more than once; send each parameter once";
    values[name] = value;
  }
  const parsed = eventListQuerySchema.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys) fields[key] = "is not an accepted parameter";
        continue;
      }
      const name = String(issue.path[0] ?? "query");
      fields[name] ??= messages[name as keyof typeof messages] ?? "is invalid";
    }
  }
  if (!parsed.success || Object.keys(fields).length > 0) throw invalidQuery(fields);
  return { after: parsed.data.after ?? 0, limit: parsed.data.limit ?? DEFAULT_EVENTS_LIMIT };
}
