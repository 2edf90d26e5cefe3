import { redirect } from "next/navigation";
import type { z } from "zod";
import type { SessionUser } from "@/lib/auth/users";
import { requireAdmin, requireSignedIn } from "@/lib/dashboard/session";
import { newId } from "@/lib/ids";
import { runAsUser } from "@/lib/observability/context";
import { getRuntime, type Runtime } from "@/lib/server/runtime";
import { type ActionFailure, actionError, type FailureWording, invalidForm } from "./action-state";
import { formOrigin, NO_ORIGIN } from "./form-origin";

/** What every dashboard action runs with: the signed-in admin (whose organisation it acts on) and the services. */
export interface ActionContext {
  user: SessionUser;
  runtime: Runtime;
}

/** For actions declared with `origin: true`: the dashboard's own address, checked. */
export interface OriginContext extends ActionContext {
  origin: string;
}

/** An action's answer that leaves the form for another page; redirect() runs outside the error mapping. */
export interface Redirect {
  readonly redirectTo: string;
}

export function redirectTo(path: string): Redirect {
  return { redirectTo: path };
}

export interface AdminActionOptions extends FailureWording {
  /**
   * One message for a form that does not parse, for forms whose fields a person does not type
   * (hidden inputs, buttons). Without it, the answer lists every offending field.
   */
  invalid?: string;
}

type Action<R> = (state: unknown, formData: FormData) => Promise<Exclude<R, Redirect> | ActionFailure>;

/**
 * A dashboard server action that changes something, as a declaration: the form's schema and what
 * to run. In this order it checks the session and the admin role (requireAdmin, against the
 * database on every call), parses the whole FormData with the schema, checks the Origin when the
 * action builds links back to the dashboard, runs, and maps whatever was thrown to the form's state
 * (actionError). The organisation is always the session's, never the form's. The previous state is
 * ignored: it may hold a secret shown once, and nothing depends on it.
 */
export function adminAction<S extends z.ZodType, R extends { ok: boolean } | Redirect>(
  schema: S,
  run: (input: z.output<S>, context: ActionContext) => Promise<R>,
  options?: AdminActionOptions & { origin?: false },
): Action<R>;
export function adminAction<S extends z.ZodType, R extends { ok: boolean } | Redirect>(
  schema: S,
  run: (input: z.output<S>, context: OriginContext) => Promise<R>,
  options: AdminActionOptions & { origin: true },
): Action<R>;
export function adminAction<S extends z.ZodType, R extends { ok: boolean } | Redirect>(
  schema: S,
  run: (input: z.output<S>, context: OriginContext) => Promise<R>,
  options: AdminActionOptions & { origin?: boolean } = {},
): Action<R> {
  return guardedAction(requireAdmin, schema, run, options);
}

/**
 * The same declaration for what a person does to their own account (their password): any
 * signed-in user, admin or member. The user is the session's, never the form's.
 */
export function signedInAction<S extends z.ZodType, R extends { ok: boolean } | Redirect>(
  schema: S,
  run: (input: z.output<S>, context: ActionContext) => Promise<R>,
  options: AdminActionOptions = {},
): Action<R> {
  return guardedAction(requireSignedIn, schema, run, options);
}

function guardedAction<S extends z.ZodType, R extends { ok: boolean } | Redirect>(
  requireUser: () => Promise<SessionUser>,
  schema: S,
  run: (input: z.output<S>, context: OriginContext) => Promise<R>,
  options: AdminActionOptions & { origin?: boolean },
): Action<R> {
  return async (_state, formData) => {
    let answer: R;
    try {
      const user = await requireUser();
      const parsed = schema.safeParse(Object.fromEntries(formData));
      if (!parsed.success) {
        return options.invalid === undefined ? invalidForm(parsed.error) : { ok: false, error: options.invalid };
      }
      const origin = options.origin ? await formOrigin() : "";
      if (origin === null) return { ok: false, error: NO_ORIGIN };
      const runtime = await getRuntime();
      answer = await runAsUser(user, newId("request"), () => run(parsed.data, { user, runtime, origin }));
    } catch (error) {
      return actionError(error, options);
    }
    if (isRedirect(answer)) redirect(answer.redirectTo);
    return answer as Exclude<R, Redirect>;
  };
}

function isRedirect(answer: object): answer is Redirect {
  return "redirectTo" in answer && typeof answer.redirectTo === "string";
}
