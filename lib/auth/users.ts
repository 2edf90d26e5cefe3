import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, users } from "@/lib/db/schema";
import { hashPassword, needsRehash, verifyPassword } from "./password";

export interface SessionUser {
  userId: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: "admin" | "member";
  /** Moves on when the user's password, role or membership changes: older sessions then end. */
  sessionVersion: number;
}

/** What a session token names: the user, and their session version when it was signed. */
export interface SessionClaims {
  userId: string;
  sessionVersion: number;
}

/** The claims of a session token (`sub`, `sv`) or session (`userId`, `sessionVersion`); null if either is missing. */
export function sessionClaims(token: unknown): SessionClaims | null {
  if (!token || typeof token !== "object") return null;
  const fields = token as Record<string, unknown>;
  const userId = fields.sub ?? fields.userId;
  const sessionVersion = fields.sv ?? fields.sessionVersion;
  if (typeof userId !== "string" || typeof sessionVersion !== "number" || !Number.isInteger(sessionVersion))
    return null;
  return { userId, sessionVersion };
}

// A real hash, at today's cost, of a random password made at startup: unknown emails cost the
// same time as known ones, so the answer's timing does not say whether an account exists.
let dummyHash: Promise<string> | undefined;

/**
 * Checks an email and password; null for any mismatch, without saying which part was wrong. A
 * hash stored at a lower cost than today's is replaced on this successful sign-in.
 */
export async function authenticateUser(db: Db, email: string, password: string): Promise<SessionUser | null> {
  const user = await findUser(db, { email: email.trim().toLowerCase() });
  dummyHash ??= hashPassword(randomBytes(16).toString("base64"));
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash));
  if (!user || !ok) return null;
  if (needsRehash(user.passwordHash)) {
    // Only over the hash this password was checked against: a change or reset that landed meanwhile stays.
    await db
      .update(users)
      .set({ passwordHash: await hashPassword(password) })
      .where(and(eq(users.id, user.id), eq(users.passwordHash, user.passwordHash)));
  }
  return toSessionUser(user);
}

/**
 * The signed-in user as stored now, or null when the user is gone or their session version has
 * moved on since the session was signed (a password reset, a role change): that session has ended.
 */
export async function loadSessionUser(db: Db, claims: SessionClaims): Promise<SessionUser | null> {
  const user = await findUser(db, { id: claims.userId });
  return user && user.sessionVersion === claims.sessionVersion ? toSessionUser(user) : null;
}

async function findUser(db: Db, by: { id: string } | { email: string }) {
  const [row] = await db
    .select({
      id: users.id,
      organizationId: users.organizationId,
      organizationName: organizations.name,
      email: users.email,
      role: users.role,
      passwordHash: users.passwordHash,
      sessionVersion: users.sessionVersion,
    })
    .from(users)
    .innerJoin(organizations, eq(organizations.id, users.organizationId))
    .where("id" in by ? eq(users.id, by.id) : eq(users.email, by.email));
  return row;
}

function toSessionUser(row: NonNullable<Awaited<ReturnType<typeof findUser>>>): SessionUser {
  return {
    userId: row.id,
    organizationId: row.organizationId,
    organizationName: row.organizationName,
    email: row.email,
    role: row.role === "admin" ? "admin" : "member",
    sessionVersion: row.sessionVersion,
  };
}
