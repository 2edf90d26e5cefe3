import { headers } from "next/headers";
import { log } from "@/lib/observability/log";

/**
 * The dashboard's own address as the browser sent it with a server action, for links that must
 * come back here (Stripe Checkout, a bank's 3-D Secure page). A server action's Origin is checked
 * against its host (sameSiteAction, before Next's own check), so a well-formed Origin names this
 * dashboard; anything else is null.
 */
export async function formOrigin(): Promise<string | null> {
  const origin = (await headers()).get("origin") ?? "";
  return /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin) ? origin : null;
}

export const NO_ORIGIN = "Open this page from the dashboard's own address.";

/** What a refused server action answers: 403, in words (Next's own refusal is a bare 500). */
export const FOREIGN_ACTION =
  "This form was sent from another site, so it was refused. Open the dashboard at its own address and try again.";

/**
 * Whether a server action's Origin passes the check Next's action handler makes against
 * cross-site requests (CSRF), the same rule: with an Origin, its host must be the request's host,
 * the first X-Forwarded-Host when there is one, else Host. Next reads X-Forwarded-Host whoever sent
 * it, and so does this: a page on another site cannot make a browser send that header (it would
 * need CORS, which this app never grants), and a request this refused but Next would have run, or
 * the reverse, would change which actions run. No Origin passes, as in Next: browsers send one with
 * every POST, so a request without it is no browser's. This app sets no `serverActions.allowedOrigins`.
 */
export function sameSiteAction(requestHeaders: Headers): boolean {
  const origin = requestHeaders.get("origin");
  if (origin === null) return true;
  const forwarded = requestHeaders.get("x-forwarded-host")?.split(",")[0]?.trim();
  const host = forwarded || requestHeaders.get("host");
  return host !== null && host !== "" && originHost(origin) === host;
}

/** The Origin's host as Next compares it (`new URL(origin).host`): null ("null") or unparsable never matches. */
function originHost(origin: string): string | null {
  if (origin === "null") return null;
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * The requests Next's action handler checks the Origin of: a POST carrying Next-Action (an action
 * sent by the page's script), or any multipart POST (a form sent before or without the script).
 */
function isServerActionPost(request: Request): boolean {
  if (request.method !== "POST") return false;
  if (request.headers.has("next-action")) return true;
  return (request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

/**
 * A server action sent from another site is answered 403 with FOREIGN_ACTION, and logged as a
 * refusal, before Next refuses it with a 500 and an error in the log (proxy.ts). Null when the
 * request may go on.
 */
export function refuseForeignAction(request: Request): Response | null {
  if (!isServerActionPost(request) || sameSiteAction(request.headers)) return null;
  const clip = (value: string | null) => (value === null ? null : value.slice(0, 100));
  log().warn(
    {
      event: "foreign_action_refused",
      path: new URL(request.url).pathname,
      origin: clip(request.headers.get("origin")),
      host: clip(request.headers.get("x-forwarded-host") ?? request.headers.get("host")),
    },
    "Refused a server action sent from another site (its Origin is not this host)",
  );
  return new Response(`${FOREIGN_ACTION}\n`, {
    status: 403,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}
