import { z } from "zod";
import { REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "@/lib/catalog";
import type { PointsError } from "../errors";
import { invalidFields, parseQuery } from "./request-fields";

/** 422 invalid_request naming every offending query parameter in details.fields. */
export function invalidQuery(fields: Record<string, string>): PointsError {
  return invalidFields("query", fields);
}

/**
 * A list endpoint's query, validated strictly against its schema (request-fields.ts): each bad
 * value is named with its parameter's rule from `messages`, or a custom issue's own reason.
 */
export function parseStrictQuery<S extends z.ZodType>(
  schema: S,
  params: URLSearchParams,
  messages: Record<string, string>,
  extra?: (values: Record<string, string>, fields: Record<string, string>) => void,
): z.output<S> {
  return parseQuery(schema, params, { rules: messages, unknown: () => "is not an accepted parameter" }, extra);
}

/**
 * A list's `limit`: parsed from the query's text (1 to 3 digits, 1 to `max`), but described in the
 * OpenAPI document as what a client sends, a whole number with its default.
 */
export function limitParameter(max: number, defaultLimit: number) {
  return z
    .string()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .meta({
      description: `How many to answer, 1 to ${max}.`,
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: "integer", minimum: 1, maximum: max, default: defaultLimit });
      },
    });
}

/** A list's `reference` filter: one reference, exact. */
export function referenceParameter(description: string) {
  return z.string().min(1).max(REFERENCE_MAX_LENGTH).regex(REFERENCE_PATTERN).optional().meta({ description });
}

/** The two cursors of a keyset list go one way each: both at once are refused, each named. */
export function oneCursor(values: Record<string, string>, fields: Record<string, string>): void {
  if (values.starting_after !== undefined && values.ending_before !== undefined) {
    const both = "cannot be combined with the other cursor: send starting_after or ending_before, not both";
    fields.starting_after ??= both;
    fields.ending_before ??= both;
  }
}
