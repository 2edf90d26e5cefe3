import { z } from "zod";
import { REFERENCE_MAX_LENGTH, REFERENCE_PATTERN } from "@/lib/catalog";
import { PointsError } from "./errors";

/** 422 invalid_request naming every offending query parameter in details.fields. */
export function invalidQuery(fields: Record<string, string>): PointsError {
  const names = Object.keys(fields);
  return new PointsError(
    "invalid_request",
    `The query is invalid: check ${names.map((name) => `\`${name}\``).join(", ")} and send it again.`,
    { details: { fields: { ...fields } } },
  );
}

/**
 * A list endpoint's query, validated strictly against its schema: every offending parameter is
 * named at once in details.fields (unknown ones, repeated ones, bad values with the parameter's
 * rule from `messages`, or a custom issue's own reason), with any more that `extra` finds.
 */
export function parseStrictQuery<S extends z.ZodType>(
  schema: S,
  params: URLSearchParams,
  messages: Record<string, string>,
  extra?: (values: Record<string, string>, fields: Record<string, string>) => void,
): z.output<S> {
  const fields = Object.create(null) as Record<string, string>; // Null prototype: a parameter "__proto__" stays a field.
  const values = Object.create(null) as Record<string, string>;
  for (const [name, value] of params) {
    if (name in values) fields[name] = "appears more than once; send each parameter once";
    values[name] = value;
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const key of issue.keys) fields[key] = "is not an accepted parameter";
        continue;
      }
      const name = String(issue.path[0] ?? "query");
      const why = issue.code === "custom" ? issue.message : messages[name];
      fields[name] ??= why ?? "is invalid";
    }
  }
  extra?.(values, fields);
  if (!parsed.success || Object.keys(fields).length > 0) throw invalidQuery(fields);
  return parsed.data;
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
