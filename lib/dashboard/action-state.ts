import type { ZodError } from "zod";
import { NotAllowedError } from "@/lib/dashboard/session";
import { log } from "@/lib/observability/log";
import { type ErrorCode, PointsError } from "@/lib/points/errors";

/** What a dashboard form's server action answers, for useActionState: null before the first submit. */
export type ActionState<T extends object = object> =
  | ({ ok: true } & T)
  | { ok: false; error: string; fields?: Record<string, string> }
  | null;

export type ActionFailure = { ok: false; error: string; fields?: Record<string, string> };

/** How one action words its failures; every part is optional and defaults to the common wording. */
export interface FailureWording {
  /**
   * The service's messages speak to API clients; these say the same for a person in this form. A
   * PointsError with fields keeps its (reworded) message and lists the fields under it, instead of
   * the summary that points at highlighted fields.
   */
  messages?: Partial<Record<ErrorCode, string>>;
  /** The answer to an unexpected failure, which is logged and never shown. */
  unexpected?: string;
}

const UNEXPECTED = "Something went wrong on our side; nothing was changed. Try again in a moment.";

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
 * or provider detail ever reaches the page. Both checks are brand checks (lib/brand.ts), so they
 * hold for errors made by the other bundle's copy of a class.
 */
export function actionError(error: unknown, wording: FailureWording = {}): ActionFailure {
  if (error instanceof NotAllowedError) return { ok: false, error: error.message };
  if (error instanceof PointsError) {
    const fields = error.details.fields;
    const hasFields = isStringRecord(fields) && Object.keys(fields).length > 0;
    const reworded = wording.messages?.[error.code];
    if (reworded !== undefined)
      return hasFields ? { ok: false, error: reworded, fields } : { ok: false, error: reworded };
    // With a field to point at, the message sits by the field and the summary says where to look.
    return hasFields
      ? { ok: false, error: "Check the highlighted field; nothing was saved.", fields }
      : { ok: false, error: error.message };
  }
  log().error({ event: "dashboard_action_failed", err: error }, "Dashboard action failed");
  return { ok: false, error: wording.unexpected ?? UNEXPECTED };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" && value !== null && Object.values(value).every((entry) => typeof entry === "string")
  );
}
