import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getRuntime } from "@/lib/runtime";
import { authSecret } from "./secret";
import { clientAddress, operatorTrustsForwardedHeaders } from "./trust";
import { safeRedirectPath } from "./redirect";
import { signInWithPassword } from "./sign-in";

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
  // must not need the secret (production refuses to run without one, at startup; lib/startup.ts).
  get secret() {
    return authSecret();
  },
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request) {
        if (!credentials?.email || !credentials.password) return null;
        const runtime = await getRuntime();
        const forwardedFor = request?.headers?.["x-forwarded-for"];
        // A SignInRefusedError's message reaches the sign-in page as next-auth's `error`.
        const user = await signInWithPassword(runtime.db, runtime.clock, {
          email: credentials.email,
          password: credentials.password,
          address: clientAddress(typeof forwardedFor === "string" ? forwardedFor : null),
        });
        return user ? { id: user.userId, email: user.email } : null;
      },
    }),
  ],
  callbacks: {
    // Redirects after sign-in and sign-out stay on this site, whatever callbackUrl a link carried.
    redirect({ url, baseUrl }) {
      return `${baseUrl}${safeRedirectPath(url.startsWith(baseUrl) ? url.slice(baseUrl.length) || "/" : url)}`;
    },
    // The token carries only the user id; organisation and role are read fresh on every request.
    jwt({ token, user }) {
      if (user) token.sub = user.id;
      return token;
    },
    session({ session, token }) {
      return { ...session, userId: token.sub };
    },
  },
};
