import { and, desc, eq, gt, inArray, lt } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { signInFailures } from "@/lib/db/schema";

/**
 * Ten failed sign-ins in fifteen minutes for one email, then a pause. One client address gets
 * more room (an office behind one NAT signs in as one address), enough to stop a guessing run.
 */
export const SIGN_IN_MAX_FAILURES = 10;
export const SIGN_IN_MAX_FAILURES_PER_ADDRESS = 50;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** The keys a sign-in attempt is counted under: the normalised email, and the address when known. */
export function throttleKeys(email: string, address: string | null): string[] {
  const keys = [`email:${email.trim().toLowerCase()}`];
  if (address) keys.push(`ip:${address}`);
  return keys;
}

/** Sign-in is paused for one of these keys: the person is told when to try again. */
export class SignInThrottledError extends Error {
  constructor(readonly retryAfterMs: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
    super(`Too many failed sign-ins; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`);
    this.name = "SignInThrottledError";
  }
}

/**
 * Refuses the attempt when any key has SIGN_IN_MAX_FAILURES failures inside the window, before any
 * password is checked (the check is the expensive part an attacker wants to make us do). Counted in
 * Postgres, so every app instance shares the count. The pause ends when the oldest failure that
 * makes up the limit leaves the window.
 */
export async function assertSignInAllowed(db: Db, keys: string[], now: Date): Promise<void> {
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS);
  let retryAfterMs = 0;
  for (const key of keys) {
    const [limiting] = await db
      .select({ failedAt: signInFailures.failedAt })
      .from(signInFailures)
      .where(and(eq(signInFailures.key, key), gt(signInFailures.failedAt, since)))
      .orderBy(desc(signInFailures.failedAt))
      .offset((key.startsWith("ip:") ? SIGN_IN_MAX_FAILURES_PER_ADDRESS : SIGN_IN_MAX_FAILURES) - 1)
      .limit(1);
    if (limiting)
      retryAfterMs = Math.max(retryAfterMs, limiting.failedAt.getTime() + SIGN_IN_WINDOW_MS - now.getTime());
  }
  if (retryAfterMs > 0) throw new SignInThrottledError(retryAfterMs);
}

export async function recordSignInFailure(db: Db, keys: string[], now: Date): Promise<void> {
  await db.insert(signInFailures).values(keys.map((key) => ({ key, failedAt: now })));
  // Rows older than the window count for nothing; dropping them now and then keeps the table small.
  if (Math.random() < 0.05) {
    await db.delete(signInFailures).where(lt(signInFailures.failedAt, new Date(now.getTime() - SIGN_IN_WINDOW_MS)));
  }
}

/** A successful sign-in clears its email's failures (an address's stay: it may be someone else's). */
export async function clearSignInFailures(db: Db, email: string): Promise<void> {
  await db.delete(signInFailures).where(inArray(signInFailures.key, throttleKeys(email, null)));
}
