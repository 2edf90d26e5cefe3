import type { ZodError } from "zod";
import { NotAllowedError } from "@/lib/auth/session";
import { PointsError } from "@/lib/points/errors";

/** What a dashboard form's server action answers, for useActionState: null before the first submit. */
export type ActionState<T extends object = object> =
  | ({ ok: true } & T)
  | { ok: false; error: string; fields?: Record<string, string> }
  | null;

export type ActionFailure = { ok: false; error: string; fields?: Record<string, string> };

/** Every offending field of a FormData parse, keyed by the form's field names. */
export function invalidForm(error: ZodError): ActionFailure {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "form");
    fields[key] ??= issue.message;
  }
  return { ok: false, error: "Some fields need attention; nothing was saved.", fields };
}

/**
 * Turns what an action threw into a message the form shows. Only our own errors carry their
 * message to the browser; anything else is logged and answered generically, so no SQL, stack
 * or provider detail ever reaches the page.
 */
export function actionError(error: unknown): ActionFailure {
  if (error instanceof NotAllowedError) return { ok: false, error: error.message };
  if (error instanceof PointsError) {
    const fields = error.details.fields;
    // With a field to point at, the message sits by the field and the summary says where to look.
    return isStringRecord(fields) && Object.keys(fields).length > 0
      ? { ok: false, error: "Check the highlighted field; nothing was saved.", fields }
      : { ok: false, error: error.message };
  }
  console.error("Dashboard action failed:", error);
  return { ok: false, error: "Something went wrong on our side; nothing was changed. Try again in a moment." };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.values(value).every((entry) => typeof entry === "string")
  );
}
