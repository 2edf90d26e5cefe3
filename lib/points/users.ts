import { eq } from "drizzle-orm";
import { generatePassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { users } from "@/lib/db/schema";
import { newId } from "@/lib/ids";
import { ProvisioningError } from "./errors";
import { getOrganization } from "./organizations";
import type { Services } from "./services";

export const USER_ROLES = ["admin", "member"] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A user with a generated password, returned once. */
export async function addUser(
  services: Services,
  organizationId: string,
  input: { email: string; role: string },
): Promise<{ userId: string; email: string; password: string; role: UserRole }> {
  const email = normaliseEmail(input.email);
  if (!(USER_ROLES as readonly string[]).includes(input.role)) {
    const problem = `must be admin or member, not "${input.role}".`;
    throw new ProvisioningError(`The role ${problem}`, { fields: { role: problem } });
  }
  const role = input.role as UserRole;
  if (!(await getOrganization(services.db, organizationId))) {
    throw new ProvisioningError(`No organisation ${organizationId}.`);
  }
  const { password, passwordHash } = await generatePassword();
  const userId = await insertUser(services.db, {
    organizationId,
    email,
    passwordHash,
    role,
    now: services.clock.now(),
  });
  return { userId, email, password, role };
}

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

