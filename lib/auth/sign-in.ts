import type { Clock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { log } from "@/lib/observability/log";
import { PasswordHashingBusyError } from "./password";
import {
  assertSignInAllowed,
  clearSignInFailures,
  recordSignInFailure,
  SignInThrottledError,
  throttleKeys,
} from "./throttle";
import { authenticateUser, type SessionUser } from "./users";

/** A sign-in refused for a reason the person can act on: the message is shown on the sign-in page. */
export class SignInRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignInRefusedError";
  }
}

/**
 * Email-and-password sign-in, throttled: the throttle is checked before the password (the costly
 * part), a failure is counted under the email and the client address, a success clears the
 * email's count. Null for a wrong email or password, never saying which.
 *
 * Fail closed: if the throttle cannot be read (the database is down), nobody signs in, rather than
 * letting unlimited guesses through while it is.
 */
export async function signInWithPassword(
  db: Db,
  clock: Clock,
  input: { email: string; password: string; address: string | null },
): Promise<SessionUser | null> {
  const keys = throttleKeys(input.email, input.address);
  try {
    await assertSignInAllowed(db, keys, clock.now());
    const user = await authenticateUser(db, input.email, input.password);
    if (user) await clearSignInFailures(db, input.email);
    else await recordSignInFailure(db, keys, clock.now());
    return user;
  } catch (error) {
    if (error instanceof SignInThrottledError || error instanceof PasswordHashingBusyError) {
      throw new SignInRefusedError(error.message);
    }
    log().error(
      { event: "sign_in_unchecked", err: error },
      `Sign-in could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    );
    throw new SignInRefusedError("Signing in is unavailable right now; try again in a minute.");
  }
}
