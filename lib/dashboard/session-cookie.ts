import { cookies } from "next/headers";
import { decode, encode } from "next-auth/jwt";
import { secureCookies, sessionCookieName } from "@/lib/auth/cookies";
import { authSecret } from "@/lib/auth/secret";
import { sessionClaims } from "@/lib/auth/users";
import { SESSION_MAX_AGE_SECONDS } from "./auth-options";

/**
 * Keeps this browser signed in after its user's session version moved on (their own password
 * change, which ends every session of theirs): its session cookie is signed again with the new
 * version, as next-auth signs one at sign-in, in the response to the request that made the
 * change. Only the cookie this request came with, and only for the user it names; false (and the
 * browser is signed out at its next request, as every other one) when there is no such cookie.
 */
export async function resignSession(userId: string, sessionVersion: number): Promise<boolean> {
  const jar = await cookies();
  const name = sessionCookieName();
  const current = jar.get(name)?.value;
  const secret = authSecret();
  const token = current ? await decode({ token: current, secret }).catch(() => null) : null;
  if (!token || sessionClaims(token)?.userId !== userId) return false;
  const { iat: _iat, exp: _exp, jti: _jti, ...claims } = token;
  const value = await encode({ token: { ...claims, sv: sessionVersion }, secret, maxAge: SESSION_MAX_AGE_SECONDS });
  // The attributes next-auth gives its session cookie, so this one replaces it.
  jar.set(name, value, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies(),
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
  return true;
}
