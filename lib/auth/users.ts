import { eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, users } from "@/lib/db/schema";
import { randomBytes } from "node:crypto";
import { hashPassword, needsRehash, verifyPassword } from "./password";

export interface SessionUser {
  userId: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: "admin" | "member";
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
    await db.update(users).set({ passwordHash: await hashPassword(password) }).where(eq(users.id, user.id));
  }
  return toSessionUser(user);
}

/** The signed-in user as stored now: a deleted user or a changed role takes effect at once. */
export async function loadSessionUser(db: Db, userId: string): Promise<SessionUser | null> {
  const user = await findUser(db, { id: userId });
  return user ? toSessionUser(user) : null;
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
  };
}
