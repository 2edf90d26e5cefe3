import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { cache } from "react";
import { loadSessionUser, type SessionUser, sessionClaims } from "@/lib/auth/users";
import { brandOf, hasBrand } from "@/lib/brand";
import { getRuntime } from "@/lib/server/runtime";
import { authOptions } from "./auth-options";

/**
 * The signed-in user, checked against the database on every call (pages and server actions
 * alike): the proxy only redirects, it is not the security boundary.
 */
export async function getSessionUser(): Promise<SessionUser | null> {
  return sessionUserOfRender();
}

/**
 * One check per page render, shared by its layout and the page itself (each asks). React keeps
 * this only inside a server component render: an action, a route handler and every new request
 * check again.
 */
const sessionUserOfRender = cache(async (): Promise<SessionUser | null> => {
  const claims = sessionClaims(await getServerSession(authOptions));
  if (!claims) return null;
  const runtime = await getRuntime();
  return loadSessionUser(runtime.db, claims);
});

/** For pages: the user, or a redirect to sign in. */
export async function requireUser(): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  return user;
}

const notAllowedBrand = brandOf("NotAllowedError");

export class NotAllowedError extends Error {
  readonly [notAllowedBrand] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(notAllowedBrand)(value);
  }
  constructor(message = "Only an admin of this organisation can do that.") {
    super(message);
    this.name = "NotAllowedError";
  }
}

/** For server actions a person takes on their own account: signed in, any role, or an error the form shows. */
export async function requireSignedIn(): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) throw new NotAllowedError("Your session has ended; sign in again.");
  return user;
}

/** For server actions that change something: a signed-in admin, or an error the form shows. */
export async function requireAdmin(): Promise<SessionUser> {
  const user = await requireSignedIn();
  if (user.role !== "admin") throw new NotAllowedError();
  return user;
}
