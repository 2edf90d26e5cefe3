import { eq } from "drizzle-orm";
import { topUps } from "@/lib/db/schema";
import { formatMoney } from "@/lib/format";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { PgliteLockedError } from "@/lib/db/pglite-lock";
import { createApiKey, revokeApiKey } from "@/lib/points/api-keys";
import { assertChargedHere, chargedBy, chargedElsewhereMessage } from "@/lib/points/charged-by";
import { PointsError, ProvisioningError } from "@/lib/points/errors";
import { syncDispute } from "@/lib/points/after-payment/disputes";
import { getPointsBalance } from "@/lib/points/ledger";
import { deliverPendingEvents } from "@/lib/points/provider-events";
import { refundTopUp, retryRequestedRefunds } from "@/lib/points/after-payment/refunds";
import { spendPoints } from "@/lib/points/usage";
import { createOrganization, getOrganization, updateOrganization } from "@/lib/points/organizations";
import { addUser } from "@/lib/points/members";
import { listDeferredEvents, listPurchasesNeedingAttention, listUnansweredRefunds, listUnmatchedEvents } from "@/lib/points/attention";
import { retryDeferredEvents } from "@/lib/points/billing-events";
import { reconcileTopUps, unresolvedChargedElsewhere } from "@/lib/points/purchase";
import { createRuntime, type Runtime } from "@/lib/server/runtime";
import { UsageError } from "./args";
import { parseCommand, type PointsCommand } from "./commands";
import {
  type CliIo,
  paymentMethodLines,
  paymentMethodsJson,
  printJson,
  refusalMessage,
  settingsLines,
  settledJson,
} from "./output";
import { USAGE } from "./usage";

/** Exit codes: 0 done, 1 refused or failed (nothing changed), 2 the command line is wrong. */
export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

/** A refusal found while running (an unknown id, say): the reason is for the operator. */
class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandRefused";
  }
}

export interface PointsCliDependencies {
  /** The app's own runtime: the same database, migrations and billing provider as the server. */
  openRuntime(): Promise<Runtime>;
}

const defaultDependencies: PointsCliDependencies = { openRuntime: () => createRuntime() };

/**
 * `npm run points -- <command>` (docs/contract.md §7). The whole line is validated before the database
 * is opened, and every change goes through lib/points, which validates before it writes, so a
 * refused command leaves the database as it was. Returns the exit code.
 */
export async function runPointsCli(
  argv: readonly string[],
  io: CliIo,
  dependencies: PointsCliDependencies = defaultDependencies,
): Promise<number> {
  let command: PointsCommand;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${error.message}\n`);
    io.stderr(error.showUsage ? `\n${USAGE}` : "Run `npm run points -- help` for the commands and options.\n");
    return EXIT_USAGE;
  }
  if (command.kind === "help") {
    io.stdout(USAGE);
    return EXIT_OK;
  }

  let runtime: Runtime;
  try {
    runtime = await dependencies.openRuntime();
  } catch (error) {
    // PgliteLockedError's own message says to stop the server or set DATABASE_URL.
    const reason = error instanceof PgliteLockedError ? error.message : `The command could not start: ${messageOf(error)}`;
    io.stderr(`${reason}\n`);
    return EXIT_REFUSED;
  }
  try {
    await execute(command, runtime, io);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ProvisioningError || error instanceof CommandRefused || error instanceof PointsError) {
      const message = error instanceof ProvisioningError ? refusalMessage(error) : error.message;
      io.stderr(`${message}\nNothing was changed.\n`);
    } else {
      io.stderr(`The command failed: ${messageOf(error)}\n`);
    }
    return EXIT_REFUSED;
  } finally {
    // Closing lets the process exit at once and, on PGlite, releases the directory lock.
    await runtime.database.close().catch(() => {});
  }
}

async function execute(command: Exclude<PointsCommand, { kind: "help" }>, runtime: Runtime, io: CliIo): Promise<void> {
  switch (command.kind) {
    case "org-create":
      return orgCreate(command, runtime, io);
    case "org-update":
      return orgUpdate(command, runtime, io);
    case "key-create":
      return keyCreate(command, runtime, io);
    case "key-revoke":
      return keyRevoke(command, runtime, io);
    case "user-add":
      return userAdd(command, runtime, io);
    case "reconcile":
      return reconcile(command, runtime, io);
    case "stripe-setup-prices":
      return stripeSetupPrices(command, runtime, io);
    case "top-up-refund":
      return topUpRefund(command, runtime, io);
    case "dispute-settle":
      return disputeSettle(command, runtime, io);
    case "org-spend":
      return orgSpend(command, runtime, io);
  }
}

/**
 * `top-up refund`: the same request run again, after a crash or by a second operator, refunds
 * once (lib/points/after-payment/refunds.ts). Exit 1 when the provider refused it (nothing changed) or did not
 * answer (run the same command again).
 */
async function topUpRefund(command: Extract<PointsCommand, { kind: "top-up-refund" }>, runtime: Runtime, io: CliIo): Promise<void> {
  const result = await refundTopUp(runtime, {
    topUpId: command.topUpId,
    points: command.points,
    reason: command.reason,
    key: command.key,
  });
  const { refund, topUp } = result;
  const row = {
    refund_id: refund.id,
    top_up_id: topUp.id,
    organization_id: topUp.organizationId,
    status: result.outcome,
    points: refund.points,
    amount: refund.amount,
    currency: refund.currency,
    provider_refund_id: refund.providerRefundId,
    shortfall_points: result.shortfall,
    points_balance: result.pointsBalance,
    replayed: result.replayed,
    failure: refund.failureMessage,
  };
  const money = formatMoney(refund.amount, refund.currency);
  if (result.outcome === "failed") {
    throw new CommandRefused(
      `The provider refused refund ${refund.id} of ${topUp.id}: ${refund.failureMessage ?? "no reason given"}. No Points moved; the same command again asks the provider again.`,
    );
  }
  if (result.outcome === "unresolved") {
    throw new CommandRefused(
      `The provider did not answer for refund ${refund.id} of ${topUp.id} (${refund.points} Points, ${money}); it may have been made. Run the same command again: it refunds once.`,
    );
  }
  if (command.json) {
    printJson(io, row);
    return;
  }
  const lines =
    result.outcome === "pending"
      ? [`Refund ${refund.id} of ${topUp.id}: ${money} accepted by the provider, not yet returned; ${refund.points} Points leave the balance once it is.`]
      : [
          `${result.replayed ? "Already refunded" : "Refunded"} ${refund.points} Points (${money}) of ${topUp.id}: refund ${refund.id}, ${refund.providerRefundId}.`,
          ...(result.shortfall > 0
            ? [`  ${result.shortfall} of those Points had been spent already: the balance stays at 0 and the shortfall is recorded.`]
            : []),
          `  Balance of ${topUp.organizationId}: ${result.pointsBalance} Points.`,
        ];
  io.stdout(`${lines.join("\n")}\n`);
}

/**
 * `dispute settle`: the bank decides a test-mode dispute (the simulated provider, or Stripe's test
 * mode through winning or losing evidence), then the dispute's Points move as its events would move them.
 */
async function disputeSettle(command: Extract<PointsCommand, { kind: "dispute-settle" }>, runtime: Runtime, io: CliIo): Promise<void> {
  const topUp = await getTopUp(runtime.db, command.topUpId);
  if (!topUp) throw new CommandRefused(`No top-up ${command.topUpId}.`);
  assertChargedHere(runtime.provider, topUp, "dispute");
  const settle = runtime.provider.testMode?.settleDispute;
  if (!settle) throw new CommandRefused(`${runtime.provider.displayName} cannot settle disputes from here: only in test mode.`);
  if (!topUp.disputeId) throw new CommandRefused(`Top-up ${topUp.id} has no dispute (yet: run \`npm run points -- reconcile\` to take the provider's events).`);
  if (topUp.disputeStatus !== "open") throw new CommandRefused(`The dispute of ${topUp.id} is ${topUp.disputeStatus} already.`);
  await settle(topUp.disputeId, command.outcome);
  await syncDispute(runtime, topUp.disputeId, null);
  await deliverPendingEvents(runtime);
  const settled = await getTopUp(runtime.db, topUp.id);
  const balance = await getPointsBalance(runtime.db, topUp.organizationId);
  const state = settled?.disputePointsState ?? "held";
  if (command.json) {
    printJson(io, {
      top_up_id: topUp.id,
      dispute_id: topUp.disputeId,
      status: settled?.disputeStatus,
      points: settled?.disputePoints,
      points_state: state,
      points_balance: balance,
    });
    return;
  }
  io.stdout(`Dispute of ${topUp.id} ${command.outcome}: ${settled?.disputePoints ?? 0} Points ${state}. Balance of ${topUp.organizationId}: ${balance} Points.\n`);
}

/** `org spend`: Points spent on whatever they buy, run elsewhere. */
async function orgSpend(command: Extract<PointsCommand, { kind: "org-spend" }>, runtime: Runtime, io: CliIo): Promise<void> {
  const { pointsBalance } = await spendPoints(runtime, command.organizationId, command.points);
  if (command.json) {
    printJson(io, { organization_id: command.organizationId, points: command.points, points_balance: pointsBalance });
    return;
  }
  io.stdout(`Spent ${command.points} Points of ${command.organizationId}: ${pointsBalance} Points left.\n`);
}

async function orgCreate(
  command: Extract<PointsCommand, { kind: "org-create" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const created = await createOrganization(runtime, {
    name: command.name,
    cards: command.cards,
    settings: command.options.settings,
    defaultCardIndex: command.options.defaultCardIndex,
    simulateOutage: command.options.simulateOutage,
    billingCustomerId: command.stripeCustomer,
  });
  if (command.json) {
    printJson(io, {
      organization_id: created.organization.id,
      api_key: created.apiKey.apiKey,
      key_id: created.apiKey.keyId,
      payment_methods: paymentMethodsJson(created.paymentMethods),
      admin: { email: created.admin.email, password: created.admin.password },
    });
    return;
  }
  io.stdout(
    [
      `Created organisation ${created.organization.id} (${created.organization.name}).`,
      `  API key:   ${created.apiKey.apiKey}`,
      `             key id ${created.apiKey.keyId}; the key is shown only now, so store it.`,
      `  admin:     ${created.admin.email}`,
      `  password:  ${created.admin.password}  (shown only now)`,
      ...paymentMethodLines(created.paymentMethods),
      ...settingsLines(created.organization, command.options.simulateOutage),
      "",
    ].join("\n"),
  );
}

async function orgUpdate(
  command: Extract<PointsCommand, { kind: "org-update" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const updated = await updateOrganization(runtime, command.organizationId, {
    ...command.options,
    billingCustomer: command.billingCustomer,
  });
  if (command.json) {
    printJson(io, {
      organization_id: updated.organization.id,
      payment_methods: paymentMethodsJson(updated.paymentMethods),
    });
    return;
  }
  io.stdout(
    [
      `Updated organisation ${updated.organization.id} (${updated.organization.name}).`,
      ...(command.billingCustomer ? [`  billing customer: ${updated.organization.billingCustomerId}`] : []),
      ...paymentMethodLines(updated.paymentMethods),
      ...settingsLines(updated.organization, command.options.simulateOutage),
      "",
    ].join("\n"),
  );
}

async function keyCreate(
  command: Extract<PointsCommand, { kind: "key-create" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  // createApiKey trusts its caller about the organisation; an operator's typo must not reach the
  // database as a foreign-key violation.
  const organization = await getOrganization(runtime.db, command.organizationId);
  if (!organization) throw new CommandRefused(`No organisation ${command.organizationId}.`);
  const created = await createApiKey(runtime.db, organization.id, runtime.clock, {
    scope: command.scope,
    dailyPointsCap: command.dailyPointsCap,
  });
  if (command.json) {
    printJson(io, {
      organization_id: organization.id,
      key_id: created.keyId,
      api_key: created.apiKey,
      scope: created.scope,
      daily_points_cap: created.dailyPointsCap,
    });
    return;
  }
  io.stdout(
    [
      `Created API key ${created.keyId} for ${organization.id} (${organization.name}).`,
      `  API key:   ${created.apiKey}`,
      "             shown only now, so store it.",
      `  scope:     ${created.scope === "read" ? "read (every GET and the quote; no purchases)" : "purchase"}`,
      `  daily cap: ${created.dailyPointsCap === null ? "none" : `${created.dailyPointsCap} Points in 24 hours`}`,
      "",
    ].join("\n"),
  );
}

async function keyRevoke(
  command: Extract<PointsCommand, { kind: "key-revoke" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const revoked = await revokeApiKey(runtime.db, command.keyId, runtime.clock);
  if (!revoked) throw new CommandRefused(`No active API key ${command.keyId}: it does not exist or was already revoked.`);
  if (command.json) {
    printJson(io, { key_id: command.keyId, revoked: true });
    return;
  }
  io.stdout(`Revoked API key ${command.keyId}: requests with it are now refused (403 invalid_api_key).\n`);
}

async function userAdd(
  command: Extract<PointsCommand, { kind: "user-add" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  const user = await addUser(runtime, command.organizationId, { email: command.email, role: command.role });
  if (command.json) {
    printJson(io, { user_id: user.userId, email: user.email, password: user.password, role: user.role });
    return;
  }
  io.stdout(
    [
      `Added ${user.role} ${user.email} (${user.userId}) to ${command.organizationId}.`,
      `  password:  ${user.password}  (shown only now)`,
      "",
    ].join("\n"),
  );
}

async function reconcile(
  command: Extract<PointsCommand, { kind: "reconcile" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  if (command.report) {
    await reportAttention(command.json, runtime, io);
    return;
  }
  // An operator asking now means now: purchases waiting out their backoff are asked too.
  const results = await reconcileTopUps(runtime, { leaseMs: runtime.leaseMs, ignoreBackoff: true });
  // And whatever a provider without webhooks has queued (the simulated provider's disputes and
  // refunds), and refunds whose answer was lost, re-sent under their own key.
  await deliverPendingEvents(runtime);
  // Refund and dispute events that waited for a purchase the lines above may have settled.
  await retryDeferredEvents(runtime);
  const refundsRetried = await retryRequestedRefunds(runtime, { minAgeMs: 0 });
  for (const retried of refundsRetried) {
    io.stderr(`Refund ${retried.refund.id} of ${retried.topUp.id}: ${retried.outcome}.\n`);
  }
  // Never asked about here: another provider charged them.
  const skipped = (await unresolvedChargedElsewhere(runtime)).map((topUp) => ({
    top_up_id: topUp.id,
    organization_id: topUp.organizationId,
    status: topUp.status,
    charged_by: chargedBy(topUp),
    reason: chargedElsewhereMessage(topUp, "settle"),
  }));
  for (const row of skipped) io.stderr(`Skipped ${row.top_up_id} (${row.status}): ${row.reason}\n`);
  if (command.json) {
    printJson(io, { settled: settledJson(results), skipped });
    return;
  }
  if (results.length === 0) {
    io.stdout("No unresolved purchases needed reconciling.\n");
    return;
  }
  io.stdout(
    [
      `Reconciled ${results.length} purchase${results.length === 1 ? "" : "s"}:`,
      ...settledJson(results).map(
        (row) => `  ${row.top_up_id}  ${row.organization_id}  ${row.reference}  -> ${row.status}`,
      ),
      "",
    ].join("\n"),
  );
}

/** `stripe setup-prices`: the built-in price table, as Stripe prices by lookup key. */
async function stripeSetupPrices(
  command: Extract<PointsCommand, { kind: "stripe-setup-prices" }>,
  runtime: Runtime,
  io: CliIo,
): Promise<void> {
  if (!(runtime.provider instanceof StripeBillingProvider)) {
    throw new CommandRefused("stripe setup-prices needs STRIPE_SECRET_KEY (and STRIPE_API_URL for a test server).");
  }
  const { productId, prices } = await setupStripePrices(runtime.provider.stripe, SIMULATED_PRICES);
  if (command.json) {
    printJson(io, {
      product_id: productId,
      prices: prices.map((row) => ({ points: row.points, lookup_key: row.lookupKey, price_id: row.priceId, status: row.status })),
    });
    return;
  }
  io.stdout(
    [
      `Stripe product ${productId}:`,
      ...prices.map((row) => `  ${row.lookupKey.padEnd(12)} ${row.priceId}  ${row.status}`),
      "",
    ].join("\n"),
  );
}

/** `reconcile --report`: what has been unresolved for over an hour, for a person to look into. */
async function reportAttention(json: boolean, runtime: Runtime, io: CliIo): Promise<void> {
  const now = runtime.clock.now();
  const rows = (await listPurchasesNeedingAttention(runtime.db, now)).map((topUp) => ({
    top_up_id: topUp.id,
    organization_id: topUp.organizationId,
    reference: topUp.reference,
    status: topUp.status,
    points: topUp.points,
    amount: topUp.amount,
    currency: topUp.currency,
    provider_payment_id: topUp.providerPaymentId,
    attempts: topUp.attempts,
    created_at: topUp.createdAt.toISOString(),
    next_attempt_at: topUp.nextAttemptAt?.toISOString() ?? null,
    unresolved_minutes: Math.floor((now.getTime() - topUp.createdAt.getTime()) / 60_000),
  }));
  const unmatched = (await listUnmatchedEvents(runtime.db)).map((event) => ({
    event_id: event.id,
    type: event.type,
    detail: event.detail,
    received_at: event.receivedAt.toISOString(),
  }));
  const deferred = (await listDeferredEvents(runtime.db)).map((event) => ({
    event_id: event.id,
    type: event.type,
    detail: event.detail,
    attempts: event.attempts,
    first_deferred_at: event.firstDeferredAt.toISOString(),
  }));
  const unanswered = (await listUnansweredRefunds(runtime.db)).map((refund) => ({
    refund_id: refund.id,
    top_up_id: refund.topUpId,
    points: refund.points,
    amount: refund.amount,
    currency: refund.currency,
    created_at: refund.createdAt.toISOString(),
  }));
  if (json) {
    printJson(io, { needs_attention: rows, unmatched_events: unmatched, deferred_events: deferred, unanswered_refunds: unanswered });
    return;
  }
  const after = [
    ...(unmatched.length
      ? [
          `${unmatched.length} refund or dispute event${unmatched.length === 1 ? "" : "s"} about money no purchase here follows:`,
          ...unmatched.map((event) => `  ${event.event_id}  ${event.type}  ${event.received_at}  ${event.detail ?? ""}`),
        ]
      : []),
    ...(deferred.length
      ? [
          `${deferred.length} refund or dispute event${deferred.length === 1 ? " waits" : "s wait"} for a purchase to settle (reconcile applies ${deferred.length === 1 ? "it" : "them"} once it does):`,
          ...deferred.map((event) => `  ${event.event_id}  ${event.type}  since ${event.first_deferred_at}  ${event.attempts} tries  ${event.detail}`),
        ]
      : []),
    ...(unanswered.length
      ? [
          `${unanswered.length} refund${unanswered.length === 1 ? "" : "s"} the provider has not answered (reconcile re-sends them under their key):`,
          ...unanswered.map((refund) => `  ${refund.refund_id}  ${refund.top_up_id}  ${refund.points} Points  ${refund.created_at}`),
        ]
      : []),
  ];
  if (after.length) io.stdout(`${after.join("\n")}\n`);
  if (rows.length === 0) {
    io.stdout("No purchase has been unresolved for more than an hour.\n");
    return;
  }
  io.stdout(
    [
      `${rows.length} purchase${rows.length === 1 ? " has" : "s have"} been unresolved for more than an hour (the reconciler keeps asking the provider):`,
      ...rows.map(
        (row) =>
          `  ${row.top_up_id}  ${row.organization_id}  ${row.reference}  ${row.status}  ${row.points} Points  ` +
          `${row.unresolved_minutes} min  payment ${row.provider_payment_id ?? "unknown"}  next try ${row.next_attempt_at ?? "now"}`,
      ),
      "",
    ].join("\n"),
  );
}

async function getTopUp(db: Runtime["db"], id: string) {
  const [topUp] = await db.select().from(topUps).where(eq(topUps.id, id));
  return topUp;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
