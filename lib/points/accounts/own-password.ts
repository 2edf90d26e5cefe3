import { and, eq } from "drizzle-orm";
import { chosenPasswordProblem, hashPassword, PasswordHashingBusyError, verifyPassword } from "@/lib/auth/password";
import {
  assertSignInAllowed,
  clearSignInFailures,
  recordSignInFailure,
  SignInThrottledError,
  throttleKeys,
} from "@/lib/auth/throttle";
import type { SessionUser } from "@/lib/auth/users";
import { users } from "@/lib/db/schema";
import { recordAudit } from "../audit";
import { PointsError } from "../errors";
import type { Services } from "../services";
import { nextSessionVersion } from "./members";

export interface PasswordChangeInput {
  /** The signed-in user, as their session names them (its version included). */
  user: Pick<SessionUser, "userId" | "organizationId" | "sessionVersion">;
  currentPassword: string;
  newPassword: string;
  /** The new password typed a second time. */
  confirmPassword: string;
  /** The client's address, counted by the sign-in throttle as a sign-in's is. */
  address: string | null;
}

/**
 * What came of it. Changed: the user's session version after the change (every session signed
 * with an earlier one has ended; the caller re-signs its own with this one). Refused, in words for
 * the person: their current password was wrong (counted as a failed sign-in), too many were
 * (the sign-in throttle's pause), too many passwords are being checked at once, or their session
 * had already ended.
 */
export type PasswordChange =
  | { ok: true; sessionVersion: number }
  | { ok: false; reason: "wrong_password" | "throttled" | "busy" | "session_ended"; message: string };

const WRONG_PASSWORD = "That is not your current password; nothing was changed.";
const SESSION_ENDED = "Your session has ended (your password or role was changed elsewhere); sign in again.";

/**
 * A signed-in user changes their own password, knowing the current one. The new one follows the
 * chosen-password rule (lib/auth/password.ts), typed twice alike, and differs from the current.
 *
 * A wrong current password is a guess at it, so it is throttled as a sign-in is, under the same
 * counts (the user's email and the client's address): a stolen session cookie gives no more tries
 * at the password than the sign-in page does. The change moves the user's session version on, the
 * mechanism a reset by an admin uses, which ends every session of theirs; only if the session that
 * asked still holds the version it was signed with, so a change that crossed a reset or a role
 * change elsewhere is refused rather than keeping a session that change ended.
 */
export async function changeOwnPassword(
  services: Pick<Services, "db" | "clock">,
  input: PasswordChangeInput,
): Promise<PasswordChange> {
  assertNewPassword(input);
  const { db, clock } = services;
  const [stored] = await db
    .select({ email: users.email, passwordHash: users.passwordHash, sessionVersion: users.sessionVersion })
    .from(users)
    .where(and(eq(users.id, input.user.userId), eq(users.organizationId, input.user.organizationId)));
  if (!stored || stored.sessionVersion !== input.user.sessionVersion) {
    return { ok: false, reason: "session_ended", message: SESSION_ENDED };
  }
  const keys = throttleKeys(stored.email, input.address);
  try {
    await assertSignInAllowed(db, keys, clock.now());
    if (!(await verifyPassword(input.currentPassword, stored.passwordHash))) {
      await recordSignInFailure(db, keys, clock.now());
      return { ok: false, reason: "wrong_password", message: WRONG_PASSWORD };
    }
    const passwordHash = await hashPassword(input.newPassword);
    const changed = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(users)
        .set({ passwordHash, sessionVersion: nextSessionVersion })
        .where(and(eq(users.id, input.user.userId), eq(users.sessionVersion, input.user.sessionVersion)))
        .returning({ sessionVersion: users.sessionVersion });
      if (!row) return null;
      await recordAudit(tx, {
        organizationId: input.user.organizationId,
        action: "member.password_changed",
        target: input.user.userId,
        after: { email: stored.email },
        at: clock.now(),
      });
      return row.sessionVersion;
    });
    if (changed === null) return { ok: false, reason: "session_ended", message: SESSION_ENDED };
    await clearSignInFailures(db, stored.email);
    return { ok: true, sessionVersion: changed };
  } catch (error) {
    if (error instanceof SignInThrottledError) {
      const minutes = Math.max(1, Math.ceil(error.retryAfterMs / 60_000));
      const wait = `${minutes} minute${minutes === 1 ? "" : "s"}`;
      return { ok: false, reason: "throttled", message: `Too many wrong passwords; try again in ${wait}.` };
    }
    if (error instanceof PasswordHashingBusyError) return { ok: false, reason: "busy", message: error.message };
    throw error;
  }
}

/** The new password's own checks, before anything is read: every problem at once, by field. */
function assertNewPassword(input: PasswordChangeInput): void {
  const fields: Record<string, string> = {};
  if (input.currentPassword === "") fields.currentPassword = "Enter your current password.";
  const problem = chosenPasswordProblem(input.newPassword);
  if (problem) fields.newPassword = problem;
  else if (input.newPassword === input.currentPassword)
    fields.newPassword = "Choose a password other than your current one.";
  if (!fields.newPassword && input.confirmPassword !== input.newPassword)
    fields.confirmPassword = "This does not match the new password.";
  if (Object.keys(fields).length > 0) {
    throw new PointsError("invalid_request", "The password was not changed.", { details: { fields } });
  }
}
