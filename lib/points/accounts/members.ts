import { and, asc, eq, sql } from "drizzle-orm";
import { generatePassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db/client";
import { organizations, users } from "@/lib/db/schema";
import { recordAudit } from "../audit";
import { PointsError, ProvisioningError } from "../errors";
import type { Services } from "../services";
import { getOrganization } from "./organizations";
import { insertUser, isEmailAddress, normaliseEmail, USER_ROLES, type UserRole } from "./users";

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

/** The outcome of a change to one member, for the admin who asked; `refused` says why in words. */
export type MemberChange = { ok: true } | { ok: false; reason: "not_found" | "last_admin" | "self"; message: string };

const NOT_FOUND = {
  ok: false,
  reason: "not_found",
  message: "That person is not a member of this organisation.",
} as const;
const LAST_ADMIN = {
  ok: false,
  reason: "last_admin",
  message: "An organisation always keeps at least one admin: make someone else an admin first.",
} as const;

/**
 * Changes a member's role. The organisation always keeps an admin: the organisation row is locked
 * for the transaction, so two admins demoting each other at once are serialised and the second
 * sees that only one admin is left.
 */
export async function changeMemberRole(
  db: Db,
  organizationId: string,
  userId: string,
  role: string,
): Promise<MemberChange> {
  if (!(USER_ROLES as readonly string[]).includes(role)) throw fieldError("role", "Choose admin or member.");
  return db.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    const member = await findMember(tx, organizationId, userId);
    if (!member) return NOT_FOUND;
    if (member.role === "admin" && role !== "admin" && (await countAdmins(tx, organizationId)) <= 1) return LAST_ADMIN;
    if (member.role !== role) {
      await tx.update(users).set({ role, sessionVersion: nextSessionVersion }).where(eq(users.id, userId));
      await recordAudit(tx, {
        organizationId,
        action: "member.role_changed",
        target: userId,
        before: { email: member.email, role: member.role },
        after: { email: member.email, role },
        at: new Date(),
      });
    }
    return { ok: true };
  });
}

/**
 * Removes a member: they can no longer sign in (the session is loaded from this row on every
 * request). An admin cannot remove themselves, so nobody locks themselves out by one click; the
 * last admin cannot be removed, under the same organisation lock as a role change.
 */
export async function removeMember(
  db: Db,
  organizationId: string,
  userId: string,
  actingUserId: string,
): Promise<MemberChange> {
  if (userId === actingUserId) {
    return { ok: false, reason: "self", message: "You cannot remove yourself; another admin can." };
  }
  return db.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    const member = await findMember(tx, organizationId, userId);
    if (!member) return NOT_FOUND;
    if (member.role === "admin" && (await countAdmins(tx, organizationId)) <= 1) return LAST_ADMIN;
    await tx.delete(users).where(eq(users.id, userId));
    await recordAudit(tx, {
      organizationId,
      action: "member.removed",
      target: userId,
      before: { email: member.email, role: member.role },
      at: new Date(),
    });
    return { ok: true };
  });
}

/** A new generated password for a member, returned once (to be shown once) and stored only as a hash. */
export async function resetMemberPassword(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<{ ok: true; email: string; password: string } | Extract<MemberChange, { ok: false }>> {
  const { password, passwordHash } = await generatePassword();
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(users)
      .set({ passwordHash, sessionVersion: nextSessionVersion })
      .where(and(eq(users.id, userId), eq(users.organizationId, organizationId)))
      .returning({ email: users.email });
    if (!updated) return NOT_FOUND;
    await recordAudit(tx, {
      organizationId,
      action: "member.password_reset",
      target: userId,
      after: { email: updated.email },
      at: new Date(),
    });
    return { ok: true as const, email: updated.email, password };
  });
}

/**
 * The operator resets a person's password, naming them by ID or by email: a new generated password,
 * returned once, that ends every session of theirs and is audited, as an admin's reset is.
 */
export async function resetUserPassword(
  db: Db,
  who: { userId: string } | { email: string },
): Promise<{ userId: string; organizationId: string; email: string; password: string }> {
  const [user] = await db
    .select({ id: users.id, organizationId: users.organizationId })
    .from(users)
    .where("userId" in who ? eq(users.id, who.userId) : eq(users.email, normaliseEmail(who.email)));
  const named = "userId" in who ? who.userId : normaliseEmail(who.email);
  if (!user) throw new ProvisioningError(`No user ${named}.`);
  const reset = await resetMemberPassword(db, user.organizationId, user.id);
  if (!reset.ok) throw new ProvisioningError(`No user ${named}.`);
  return { userId: user.id, organizationId: user.organizationId, email: reset.email, password: reset.password };
}

/**
 * A user's sessions carry the session version they were signed with (lib/auth/users.ts): moving it
 * on ends every one of them, whoever asked. Removal needs no bump: the user's row is gone.
 */
export const nextSessionVersion = sql`${users.sessionVersion} + 1`;

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

async function lockOrganization(tx: Tx, organizationId: string): Promise<void> {
  await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .for("update");
}

async function findMember(tx: Tx, organizationId: string, userId: string) {
  const [member] = await tx
    .select({ id: users.id, role: users.role, email: users.email })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.organizationId, organizationId)));
  return member;
}

async function countAdmins(tx: Tx, organizationId: string): Promise<number> {
  const admins = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organizationId, organizationId), eq(users.role, "admin")));
  return admins.length;
}

function fieldError(field: string, message: string): PointsError {
  return new PointsError("invalid_request", message, { details: { fields: { [field]: message } } });
}

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
  const now = services.clock.now();
  const userId = await services.db.transaction(async (tx) => {
    const id = await insertUser(tx, { organizationId, email, passwordHash, role, now });
    await recordAudit(tx, { organizationId, action: "member.added", target: id, after: { email, role }, at: now });
    return id;
  });
  return { userId, email, password, role };
}
