import type { NextFetchEvent, NextRequest } from "next/server";
import { NextResponse } from "next/server";
import { type NextRequestWithAuth, withAuth } from "next-auth/middleware";
import { sessionCookieName } from "@/lib/auth/cookies";
import { authSecret } from "@/lib/auth/secret";
import { untrustedForwardedHeaders } from "@/lib/auth/trust";
import { refuseForeignAction } from "@/lib/dashboard/form-origin";

const dashboardGuard = withAuth({
  pages: { signIn: "/signin" },
  // Read per request, never at build time (see lib/dashboard/auth-options.ts).
  get secret() {
    return authSecret();
  },
  // The name next-auth gives the cookie (`__Secure-` in production): read from the same rule.
  get cookies() {
    return { sessionToken: { name: sessionCookieName() } };
  },
});

/**
 * Three jobs, none of them the security boundary (every page and action checks the session, and
 * Next refuses a cross-site action itself):
 * - a server action sent from another site is answered 403 in words, where Next answers 500
 *   (lib/dashboard/form-origin.ts, the same rule as Next's);
 * - next-auth's endpoints see forwarded host and scheme headers only when the operator declared
 *   a proxy (lib/auth/trust.ts); otherwise the ones the client sent are replaced;
 * - signed-out visitors of dashboard pages are sent to sign in.
 */
export default function proxy(request: NextRequest, event: NextFetchEvent) {
  const { pathname } = request.nextUrl;
  // next-auth's route handlers run no server action: its forms are its own, checked by its CSRF token.
  if (pathname.startsWith("/api/auth")) {
    const headers = untrustedForwardedHeaders(request.headers);
    return headers ? NextResponse.next({ request: { headers } }) : NextResponse.next();
  }
  const refused = refuseForeignAction(request);
  if (refused) return refused;
  if (pathname === "/dashboard" || pathname.startsWith("/dashboard/")) {
    return dashboardGuard(request as NextRequestWithAuth, event);
  }
  return NextResponse.next();
}

export const config = {
  matcher: [
    "/dashboard/:path*",
    "/api/auth/:path*",
    // Next runs an action posted to any page with its id (Next-Action), so its Origin is checked on any
    // path; a form sent without the page's script (multipart, no Next-Action) only under /dashboard, where they are.
    { source: "/:path*", has: [{ type: "header", key: "next-action" }] },
  ],
};
