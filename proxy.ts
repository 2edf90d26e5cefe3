import type { NextFetchEvent, NextRequest } from "next/server";
import { NextResponse } from "next/server";
import { type NextRequestWithAuth, withAuth } from "next-auth/middleware";
import { sessionCookieName } from "@/lib/auth/cookies";
import { authSecret } from "@/lib/auth/secret";
import { untrustedForwardedHeaders } from "@/lib/auth/trust";

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
 * Two jobs, neither of them the security boundary (every page and action checks the session):
 * - next-auth's endpoints see forwarded host and scheme headers only when the operator declared
 *   a proxy (lib/auth/trust.ts); otherwise the ones the client sent are replaced;
 * - signed-out visitors of dashboard pages are sent to sign in.
 */
export default function proxy(request: NextRequest, event: NextFetchEvent) {
  if (request.nextUrl.pathname.startsWith("/api/auth")) {
    const headers = untrustedForwardedHeaders(request.headers);
    return headers ? NextResponse.next({ request: { headers } }) : NextResponse.next();
  }
  return dashboardGuard(request as NextRequestWithAuth, event);
}

export const config = { matcher: ["/dashboard/:path*", "/api/auth/:path*"] };
