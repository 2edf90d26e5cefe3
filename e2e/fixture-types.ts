/**
 * What e2e/serve.ts provisions before the server starts and writes to e2e/.artifacts/fixtures.json.
 * Kept free of runtime imports so both the server script and the tests can share it.
 */

/** A saved card as provisioned: `kind` is the simulated test card behind it. */
export interface FixturePaymentMethod {
  id: string;
  label: string;
  kind: string;
  isDefault: boolean;
}

export interface FixtureOrganization {
  id: string;
  apiKey: string;
  keyId: string;
  paymentMethods: FixturePaymentMethod[];
}

/**
 * One organisation per scenario, so spec files never share mutable state (balances, limits,
 * references) and can run in parallel.
 */
export const FIXTURE_ORGANIZATIONS = [
  "main",
  "other",
  "balance",
  "concurrent",
  "defaults",
  "disabled",
  "unavailable",
  "unavailableEnabled",
  "noCurrency",
  "severalNoDefault",
  "singleCard",
  "noCards",
  "expiredOnly",
  "outage",
  "maxPerTopUp",
  "maxBalance",
  "frequency",
  "daily",
  "readmeLimits",
  "webhooks",
  "reads",
  "events",
  "balanceQuotes",
  "typedClient",
  "compression",
  "observability",
] as const;

export type FixtureOrganizationName = (typeof FIXTURE_ORGANIZATIONS)[number];

export interface E2eFixtures {
  baseUrl: string;
  database: "postgres" | "pglite";
  organizations: Record<FixtureOrganizationName, FixtureOrganization>;
  /** A key of `main` that was revoked after it was created. */
  revokedKey: string;
  /** The dashboard journeys' own organisations and users (e2e/dashboard/*.fixtures.ts). */
  buy?: Record<string, unknown>;
  account?: Record<string, unknown>;
  afterPayment?: Record<string, unknown>;
  billingProblem?: Record<string, unknown>;
  /** e2e/dashboard/spends.fixtures.ts: an organisation with Points to spend. */
  dashboardSpends?: Record<string, unknown>;
  /** e2e/dashboard/auto-recharge.fixtures.ts: organisations for low balance and auto-recharge. */
  autoRecharge?: Record<string, unknown>;
  /** e2e/api/scoped-keys.fixtures.ts: read and capped API keys. */
  scopedKeys?: Record<string, unknown>;
  /** e2e/api/spends.fixtures.ts: an organisation with a key of each scope. */
  spends?: Record<string, unknown>;
  /**
   * e2e/observability: the server's log (stdout and stderr, teed by serve.ts), the METRICS_TOKEN it
   * was started with, and its AUTH_SECRET, which the log must never show.
   */
  observability?: { logFile: string; metricsToken: string; authSecret: string };
  /**
   * e2e/api/events.spec.ts: the `events` organisation's webhook endpoint, at a loopback port its
   * spec listens on (the server runs with POINTS_WEBHOOKS_ALLOW_PRIVATE=1), and its secret.
   */
  events?: { receiverPort: number; endpointId: string; secret: string };
  /** With E2E_PROVIDER=stripe: the Stripe-compatible test server the app bills through. */
  stripe?: { apiUrl: string; secretKey: string; webhookSecret: string };
}
