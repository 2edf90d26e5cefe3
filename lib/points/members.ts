import { asc, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { users } from "@/lib/db/schema";
import { PointsError } from "./errors";
import { addUser, isEmailAddress, ProvisioningError, USER_ROLES, type UserRole } from "./organizations";
import type { Services } from "./services";

export interface Member {
  id: string;
  email: string;
  role: UserRole;
  createdAt: Date;
}

/** The people who can sign in to this organisation's dashboard, oldest first. Never the password hash. */
export async function listMembers(db: Db, organizationId: string): Promise<Member[]> {
  const rows = await db
    .select({ id: users.id, email: users.email, role: users.role, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.organizationId, organizationId))
    .orderBy(asc(users.createdAt), asc(users.id));
  return rows.map((row) => ({ ...row, role: row.role === "admin" ? "admin" : "member" }));
}

export interface AddedMember {
  userId: string;
  email: string;
  role: UserRole;
  /** Generated, returned once and never stored in clear. */
  password: string;
}

/**
 * An admin adds a colleague from the dashboard: the same operation as the operator's `user add`,
 * with its refusals turned into messages about the form's fields.
 */
export async function addMember(
  services: Services,
  organizationId: string,
  input: { email: string; role: string },
): Promise<AddedMember> {
  // addUser checks these too; checked first here so the form can point at the field.
  if (!isEmailAddress(input.email)) throw fieldError("email", "Enter a valid email address.");
  if (!(USER_ROLES as readonly string[]).includes(input.role)) throw fieldError("role", "Choose admin or member.");
  try {
    const added = await addUser(services, organizationId, input);
    return { userId: added.userId, email: added.email, role: added.role, password: added.password };
  } catch (error) {
    // Emails are unique across the service (they are the sign-in name); the insert's unique index decides.
    if (error instanceof ProvisioningError && error.reason === "email_taken") {
      throw fieldError("email", "Someone with this email already has an account.");
    }
    throw error;
  }
}

function fieldError(field: string, message: string): PointsError {
  return new PointsError("invalid_request", message, { details: { fields: { [field]: message } } });
}
