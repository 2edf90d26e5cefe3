import { eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { users } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { ProvisioningError } from "../errors";

export const USER_ROLES = ["admin", "member"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export async function insertUser(
  db: Db,
  input: { organizationId: string; email: string; passwordHash: string; role: UserRole; now: Date },
): Promise<string> {
  const id = newId("user");
  try {
    await db.insert(users).values({
      id,
      organizationId: input.organizationId,
      email: input.email,
      passwordHash: input.passwordHash,
      role: input.role,
      createdAt: input.now,
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_email_idx")) {
      throw emailTaken(input.email);
    }
    throw error;
  }
  return id;
}

export async function assertEmailUnused(db: Db, email: string): Promise<void> {
  const [taken] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (taken) throw emailTaken(email);
}

function emailTaken(email: string): ProvisioningError {
  return new ProvisioningError(`A user with the email ${email} already exists.`, { reason: "email_taken" });
}

/** The one rule for what counts as an email address (sign-in names, members, admins). */
export function isEmailAddress(value: string): boolean {
  // A practical subset of RFC 5322: letters, digits and the usual punctuation before the @, and
  // dot-separated DNS labels after it. No <, >, quotes, spaces or slashes, so an address is also
  // safe to show and to log.
  const address = value.trim();
  if (address.length > 254) return false;
  return /^[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/.test(
    address,
  );
}

export function normaliseEmail(email: string): string {
  if (!isEmailAddress(email)) throw new ProvisioningError(`"${email}" is not an email address.`);
  return email.trim().toLowerCase();
}
