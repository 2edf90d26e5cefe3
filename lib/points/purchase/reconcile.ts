import { and, asc, inArray, isNull, lte, or } from "drizzle-orm";
import { type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { reconcilerRun } from "@/lib/observability/purchases";
import { UNRESOLVED_STATUSES } from "../limits/limits";
import type { Services } from "../services";
import { chargedBy, chargedElsewhereSql, chargedHereSql, providerDisplayNameOf } from "./charged-by";
import { leaseIsFree } from "./lease";
import { errorSummary, type PurchaseResult } from "./outcome";
import { resolveTopUp } from "./settle";
import type { PurchaseOptions } from "./test-hooks";

/** The reconciler's batch: bounded, so one run ends in bounded time whatever is stuck. */
export const RECONCILE_BATCH = 50;

/**
 * The reconciler: settles purchases nobody came back for: unresolved ones left by a crash, a
 * timeout or an abandoned client, and ones awaiting a cardholder who may have finished on the
 * provider's page (or never will: after 23 hours they are cancelled). Each is settled exactly as
 * a retry with its reference would be, under its lease, so running it twice, on every instance,
 * or beside live traffic changes nothing more.
 *
 * A purchase is due once its lease is free, nobody touched it for minAgeMs, and its backoff
 * (next_attempt_at) has passed. Due purchases go oldest first in bounded batches; each unknown
 * answer pushes a purchase back by a doubling delay, so a stuck one cannot starve the rest.
 * Purchases another provider charged are skipped, never asked about: how many is logged for the
 * operator (unresolvedChargedElsewhere lists them).
 */
export async function reconcileTopUps(
  services: Services,
  options: PurchaseOptions & {
    limit?: number;
    minAgeMs?: number;
    ignoreBackoff?: boolean;
    /** Asked before each purchase: true stops the batch there (a shutdown), leaving the rest for later. */
    stopping?: () => boolean;
  } = {},
): Promise<PurchaseResult[]> {
  const started = performance.now();
  try {
    const { due, results, errors } = await reconcileBatch(services, options);
    const counts: Record<string, number> = errors > 0 ? { error: errors } : {};
    for (const result of results) counts[result.topUp.status] = (counts[result.topUp.status] ?? 0) + 1;
    reconcilerRun({ durationMs: performance.now() - started, due, results: counts });
    return results;
  } catch (error) {
    reconcilerRun({ durationMs: performance.now() - started, due: 0, results: {}, error });
    throw error;
  }
}

async function reconcileBatch(
  services: Services,
  options: PurchaseOptions & { limit?: number; minAgeMs?: number; ignoreBackoff?: boolean; stopping?: () => boolean },
): Promise<{ due: number; results: PurchaseResult[]; errors: number }> {
  const now = services.clock.now();
  const untouchedSince = new Date(now.getTime() - (options.minAgeMs ?? 0));
  const candidates = await services.db
    .select({ id: topUps.id })
    .from(topUps)
    .where(
      and(
        inArray(topUps.status, [...UNRESOLVED_STATUSES]),
        leaseIsFree(now),
        options.ignoreBackoff ? undefined : or(isNull(topUps.nextAttemptAt), lte(topUps.nextAttemptAt, now)),
        lte(topUps.updatedAt, untouchedSince),
        chargedHereSql(services.provider),
      ),
    )
    .orderBy(asc(topUps.createdAt), asc(topUps.id))
    .limit(options.limit ?? RECONCILE_BATCH);
  await logSkipped(services);
  const results: PurchaseResult[] = [];
  let errors = 0;
  for (const { id } of candidates) {
    if (options.stopping?.()) break;
    try {
      const result = await resolveTopUp(services, id, options);
      if (result) results.push(result);
    } catch (error) {
      // One purchase's database trouble must not stop the batch; its lease runs out by itself.
      errors += 1;
      log().error({ event: "reconcile_failed", top_up_id: id }, `Reconciling ${id} failed: ${errorSummary(error)}`);
    }
  }
  return { due: candidates.length, results, errors };
}

/**
 * Unresolved purchases (awaiting payment included) that another provider than this instance's
 * charged: the reconciler skips them; an instance or command with that provider settles them.
 */
export async function unresolvedChargedElsewhere(services: Services, limit = 500): Promise<TopUp[]> {
  return services.db
    .select()
    .from(topUps)
    .where(and(inArray(topUps.status, [...UNRESOLVED_STATUSES]), chargedElsewhereSql(services.provider)))
    .orderBy(asc(topUps.createdAt), asc(topUps.id))
    .limit(limit);
}

/** The last count logged, per process: a run logs the skipped purchases when their number changes. */
const SKIPPED_KEY = Symbol.for("points.reconcilerSkipped");

async function logSkipped(services: Services): Promise<void> {
  const skipped = await unresolvedChargedElsewhere(services, RECONCILE_BATCH);
  const holder = globalThis as { [SKIPPED_KEY]?: number };
  if ((holder[SKIPPED_KEY] ?? 0) === skipped.length) return;
  holder[SKIPPED_KEY] = skipped.length;
  if (skipped.length === 0) return;
  const names = [...new Set(skipped.map((topUp) => chargedBy(topUp) ?? services.provider.name))];
  const byProvider = names.map(providerDisplayNameOf).join(", ");
  log().warn(
    {
      event: "reconciler_skipped",
      skipped: skipped.length,
      charged_by: names,
      provider: services.provider.name,
      top_up_ids: skipped.map((topUp) => topUp.id),
    },
    `reconciler: skipped ${skipped.length}${skipped.length === RECONCILE_BATCH ? " or more" : ""} unresolved purchase(s) charged through ${byProvider}, ` +
      `not ${providerDisplayNameOf(services.provider.name)}: run \`npm run points -- reconcile\` with that provider configured to settle them.`,
  );
}
