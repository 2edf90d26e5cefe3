import type { z } from "zod";
import { PointsError } from "../errors";

/*
 * The one parser of the API's inputs: a body or a query checked strictly against its endpoint's
 * schema, every offending field named at once in details.fields (docs/contract.md §1), each in its
 * endpoint's words.
 */

/** How an endpoint says what is wrong with a field. */
export interface FieldWording {
  /** Each field's rule, as it follows the field's name: "must be …". */
  rules: Record<string, string>;
  /** A field that was left out, in its own words; undefined for its rule. */
  missing?: (field: string, rule: string | undefined) => string | undefined;
  /** A field the schema does not take. */
  unknown: (field: string) => string;
}

/** 422 invalid_request naming every offending field (or query parameter) in details.fields. */
export function invalidFields(what: "request" | "query", fields: Record<string, string>): PointsError {
  const names = Object.keys(fields).map((name) => `\`${name}\``);
  return new PointsError("invalid_request", `The ${what} is invalid: check ${names.join(", ")} and send it again.`, {
    details: { fields: { ...fields } },
  });
}

/** The issues of a failed parse, as fields: unknown ones, then each field's first issue in the endpoint's words. */
function addIssues(
  issues: readonly z.core.$ZodIssue[],
  input: Record<string, unknown>,
  wording: FieldWording,
  fields: Record<string, string>,
): void {
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) fields[key] = wording.unknown(key);
      continue;
    }
    const field = String(issue.path[0] ?? "body");
    const rule = wording.rules[field];
    const missing = input[field] === undefined ? wording.missing?.(field, rule) : undefined;
    const own = issue.code === "custom" ? issue.message : undefined;
    fields[field] ??= missing ?? own ?? rule ?? "is invalid";
  }
}

/** A JSON body, which must be an object, checked against its schema. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, wording: FieldWording): z.output<S> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidFields("request", { body: "must be a JSON object" });
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const fields = Object.create(null) as Record<string, string>; // Null prototype: a body key "__proto__" stays a field.
  addIssues(parsed.error.issues, body as Record<string, unknown>, wording, fields);
  throw invalidFields("request", fields);
}

/**
 * A list endpoint's query checked against its schema: every offending parameter is named at once
 * (unknown ones, repeated ones, bad values), with any more that `extra` finds.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  params: URLSearchParams,
  wording: Omit<FieldWording, "missing">,
  extra?: (values: Record<string, string>, fields: Record<string, string>) => void,
): z.output<S> {
  const fields = Object.create(null) as Record<string, string>; // Null prototype: a parameter "__proto__" stays a field.
  const values = Object.create(null) as Record<string, string>;
  for (const [name, value] of params) {
    if (name in values) fields[name] = "appears more than once; send each parameter once";
    values[name] = value;
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) addIssues(parsed.error.issues, values, wording, fields);
  extra?.(values, fields);
  if (!parsed.success || Object.keys(fields).length > 0) throw invalidFields("query", fields);
  return parsed.data;
}
