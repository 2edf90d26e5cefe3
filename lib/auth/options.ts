import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getRuntime } from "@/lib/runtime";
import { authSecret } from "./secret";
import { authenticateUser } from "./users";

// Without NEXTAUTH_URL, next-auth v4 would assume http://localhost:3000 and redirect there; take
// the origin from the request instead. Behind a proxy, set NEXTAUTH_URL.
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

export const SESSION_MAX_AGE_SECONDS = 8 * 60 * 60;

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/signin" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        const runtime = await getRuntime();
        const user = await authenticateUser(runtime.db, credentials.email, credentials.password);
        return user ? { id: user.userId, email: user.email } : null;
      },
    }),
  ],
  callbacks: {
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
