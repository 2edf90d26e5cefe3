/**
 * The purchase service: P1 (start.ts), P2 to P4 (settle.ts), the lease (lease.ts), the
 * reconciler (reconcile.ts) and its backoff (backoff.ts). Importers use `@/lib/points/purchase`.
 */
export { BACKOFF_BASE_MS, BACKOFF_CAP_MS, nextAttemptAfter } from "./backoff";
export { assertLeaseCoversProvider, DEFAULT_LEASE_MS, minimumLeaseMs } from "./lease";
export type { PurchaseOutcome, PurchaseResult } from "./outcome";
export { purchasePoints } from "./purchase-points";
export { quotePurchase } from "./quote";
export { RECONCILE_BATCH, reconcileTopUps, unresolvedChargedElsewhere } from "./reconcile";
export { AWAITING_PAYMENT_EXPIRES_MS, keyResendWindowMs, resolveTopUp } from "./settle";
export { type PurchaseInput, resolveCurrency, sameTerms } from "./start";
export { type PurchaseOptions, type PurchasePhase, SimulatedCrash } from "./test-hooks";
export { heldElsewhere, resolveTopUpWhenFree, SETTLE_WAIT_MS } from "./when-free";
