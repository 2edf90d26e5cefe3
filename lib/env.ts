import { z } from "zod";

const emptyAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

const envSchema = z.object({
  DATABASE_URL: optionalString,
  /** A read replica of DATABASE_URL's Postgres for lists, History and its export; the primary when unset. */
  DATABASE_READ_URL: optionalString,
  PGLITE_DIR: optionalString,
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_API_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  STRIPE_WEBHOOK_SECRET: optionalString,
  AUTH_SECRET: optionalString,
  NEXTAUTH_SECRET: optionalString,
  /** Seconds a request may work on a purchase before another instance may take it over. */
  POINTS_LEASE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().optional()),
  /**
   * Seconds a shutdown (SIGTERM) lets purchases in flight finish before it closes what is left;
   * shorter than the lease, so no other instance takes over a purchase this one is still finishing.
   */
  POINTS_DRAIN_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().optional()),
  /**
   * Seconds a shutdown (SIGTERM) keeps accepting connections after readiness turns 503, so that a
   * load balancer sees the 503 and stops sending before the listener closes; 0 closes it at once.
   */
  POINTS_SHUTDOWN_DELAY_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.string().regex(/^\d+$/, "must be a whole number of seconds, 0 or more").transform(Number).optional(),
  ),
  /** Seconds an idle kept-alive connection stays open: longer than the load balancer's idle timeout. */
  POINTS_KEEP_ALIVE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().optional()),
  /** Seconds a client has to send a request's headers; longer than the keep-alive. */
  POINTS_HEADERS_TIMEOUT_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().optional()),
  /** "off" stops the per-instance reconciler timer. */
  POINTS_RECONCILE: z.preprocess(emptyAsUndefined, z.enum(["on", "off"]).optional()),
  /** "1" lets webhook endpoints use http and private or loopback addresses: tests and development only. */
  POINTS_WEBHOOKS_ALLOW_PRIVATE: z.preprocess(emptyAsUndefined, z.enum(["0", "1"]).optional()),
  /** "off" stops this instance's webhook sender (another instance, or a worker, sends). */
  POINTS_WEBHOOKS: z.preprocess(emptyAsUndefined, z.enum(["on", "off"]).optional()),
  /** "false" for transaction-mode poolers (PgBouncer), which cannot keep prepared statements. */
  DATABASE_PREPARE: z.preprocess(emptyAsUndefined, z.enum(["true", "false"]).optional()),
  /** Proxies in front that append to X-Forwarded-For; the client's address is the Nth entry from the right. */
  AUTH_TRUSTED_PROXY_HOPS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(20).optional()),
  PORT: optionalString,
  /** The log's level (lib/observability/log.ts); info when unset. */
  LOG_LEVEL: z.preprocess(
    (value) => (typeof value === "string" ? emptyAsUndefined(value.trim().toLowerCase()) : value),
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  ),
  /** The bearer token `GET /metrics` asks for; unset, the endpoint answers 404. */
  METRICS_TOKEN: optionalString,
});

export type Env = z.infer<typeof envSchema>;

let cached: Env | undefined;

/** The environment, parsed once. A bad value stops the process with a message naming it. */
export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment: ${problems.join("; ")}`);
  }
  cached = parsed.data;
  return cached;
}

/** Stripe's own API; any other STRIPE_API_URL is a Stripe-compatible server (a test server). */
export const STRIPE_API_ORIGIN = "https://api.stripe.com";

/** Stripe settings, or null when the simulated provider is in use (docs/contract.md §6). */
export function stripeEnv(): { secretKey: string; apiUrl?: string; webhookSecret?: string } | null {
  const { STRIPE_SECRET_KEY, STRIPE_API_URL, STRIPE_WEBHOOK_SECRET } = env();
  if (!STRIPE_SECRET_KEY) return null;
  return { secretKey: STRIPE_SECRET_KEY, apiUrl: STRIPE_API_URL, webhookSecret: STRIPE_WEBHOOK_SECRET };
}
