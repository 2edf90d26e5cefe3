/** After an unknown answer the reconciler asks again after this, doubling each time, up to the cap. */
export const BACKOFF_BASE_MS = 60_000;
export const BACKOFF_CAP_MS = 30 * 60_000;

/** When the reconciler may next ask about a purchase after `attempts` attempts with no answer. */
export function nextAttemptAfter(now: Date, attempts: number): Date {
  const delay = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return new Date(now.getTime() + delay);
}
