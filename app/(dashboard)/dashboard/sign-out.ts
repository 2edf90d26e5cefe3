"use server";

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { secureCookies, sessionCookieName } from "@/lib/auth/cookies";

/**
 * Sign out: the session is a signed cookie (next-auth's JWT strategy), so ending it is dropping the
 * cookie, as next-auth's own sign-out does. A server action rather than next-auth's client, whose
 * script every dashboard page would otherwise load for this one button; and it works without JavaScript.
 */
export async function signOutAction(): Promise<void> {
  const jar = await cookies();
  // A __Secure- cookie is replaced only by a Secure one: the expiry must carry the same attributes.
  jar.set(sessionCookieName(), "", { path: "/", maxAge: 0, httpOnly: true, sameSite: "lax", secure: secureCookies() });
  redirect("/signin?signedOut=1");
}
