import { withAuth } from "next-auth/middleware";
import { authSecret } from "@/lib/auth/secret";

/**
 * Sends signed-out visitors of dashboard pages to the sign-in page. It only redirects: every page
 * and server action checks the session and the role itself, and /v3 and /api answer for themselves.
 */
export default withAuth({ pages: { signIn: "/signin" }, secret: authSecret() });

export const config = { matcher: ["/dashboard/:path*"] };
