import { eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { organizations, users } from "@/lib/db/schema";
import { verifyPassword } from "./password";

export interface SessionUser {
  userId: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: "admin" | "member";
}

// A real hash of a random password: unknown emails cost the same time as known ones.
const DUMMY_HASH =
  "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$6Y0yQyF7m3xZl6cI6wq3bV8P0gq9v3YjH1pQ5Q8h3mA=";

/** Checks an email and password; null for any mismatch, without saying which part was wrong. */
export async function authenticateUser(db: Db, email: string, password: string): Promise<SessionUser | null> {
  const user = await findUser(db, { email: email.trim().toLowerCase() });
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) return null;
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
