import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { secureCookies } from "@/lib/auth/cookies";
import { safeRedirectPath } from "@/lib/auth/redirect";
import { authSecret } from "@/lib/auth/secret";
import { signInWithPassword } from "@/lib/auth/sign-in";
import { clientAddress, operatorTrustsForwardedHeaders } from "@/lib/auth/trust";
import { loadSessionUser, sessionClaims } from "@/lib/auth/users";
import { log } from "@/lib/observability/log";
import { getRuntime } from "@/lib/server/runtime";

declare module "next-auth" {
  interface User {
    sessionVersion?: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    /** The user's session version at sign-in (lib/auth/users.ts). */
    sv?: number;
  }
}

/**
 * Thrown by the jwt callback for a session whose user is gone or whose version has moved on:
 * next-auth then answers "no session" and clears the cookie instead of re-issuing it.
 */
export class SessionEndedError extends Error {
  constructor() {
    super("This session has ended; sign in again.");
    this.name = "SessionEndedError";
  }
}

// next-auth v4 reads NEXTAUTH_URL; accept v5's AUTH_URL too. Without either, it would assume
// http://localhost:3000; it takes the origin from the request's forwarded headers instead, which
// the proxy (proxy.ts) replaces with the real Host and scheme unless the operator declared a
// trusted proxy (lib/auth/trust.ts): the decision is captured before anything is set here.
operatorTrustsForwardedHeaders();
if (!process.env.NEXTAUTH_URL && process.env.AUTH_URL) process.env.NEXTAUTH_URL = process.env.AUTH_URL;
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

export const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

export const authOptions: NextAuthOptions = {
  // Read when a request needs it, not when the module loads: `next build` loads every module and
  // must not need the secret (production refuses to run without one, at startup; lib/server/startup.ts).
  get secret() {
    return authSecret();
  },
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  get useSecureCookies() {
    return secureCookies();
  },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request) {
        if (!credentials?.email || !credentials.password) return null;
        const runtime = await getRuntime();
        // A SignInRefusedError's message reaches the sign-in page as next-auth's `error`.
        const user = await signInWithPassword(runtime.db, runtime.clock, {
          email: credentials.email,
          password: credentials.password,
          address: clientAddress(request?.headers ?? {}),
        });
        return user ? { id: user.userId, email: user.email, sessionVersion: user.sessionVersion } : null;
      },
    }),
  ],
  callbacks: {
    // Redirects after sign-in and sign-out stay on this site, whatever callbackUrl a link carried.
    redirect({ url, baseUrl }) {
      return `${baseUrl}${safeRedirectPath(url.startsWith(baseUrl) ? url.slice(baseUrl.length) || "/" : url)}`;
    },
    // The token carries the user id and session version; organisation and role are read fresh on
    // every request, and a token whose version is no longer the user's is refused, never re-issued.
    async jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.sv = user.sessionVersion;
        return token;
      }
      const claims = sessionClaims(token);
      if (!claims || !(await loadSessionUser((await getRuntime()).db, claims))) throw new SessionEndedError();
      return token;
    },
    session({ session, token }) {
      return { ...session, userId: token.sub, sessionVersion: token.sv };
    },
  },
  logger: {
    // An ended session is an expected answer, not a fault: it is not logged (with its stack) each time it is polled.
    error(code, metadata) {
      if (metadata instanceof SessionEndedError) return;
      log().error(
        { event: "next_auth_error", code },
        `[next-auth][error][${code}] ${metadata instanceof Error ? metadata.message : JSON.stringify(metadata)}`,
      );
    },
  },
};
