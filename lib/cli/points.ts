import { SIMULATED_PRICES } from "@/lib/billing/simulated";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import { PgliteLockedError } from "@/lib/db/pglite-lock";
import { createApiKey, revokeApiKey } from "@/lib/points/api-keys";
import { ProvisioningError } from "@/lib/points/errors";
import { createOrganization, getOrganization, updateOrganization } from "@/lib/points/organizations";
import { addUser } from "@/lib/points/users";
import { listPurchasesNeedingAttention } from "@/lib/points/attention";
import { reconcileTopUps } from "@/lib/points/purchase";
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
    if (error instanceof ProvisioningError || error instanceof CommandRefused) {
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
  }
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
  const created = await createApiKey(runtime.db, organization.id, runtime.clock);
  if (command.json) {
    printJson(io, { organization_id: organization.id, key_id: created.keyId, api_key: created.apiKey });
    return;
  }
  io.stdout(
    [
      `Created API key ${created.keyId} for ${organization.id} (${organization.name}).`,
      `  API key:   ${created.apiKey}`,
      "             shown only now, so store it.",
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
  if (command.json) {
    printJson(io, { settled: settledJson(results) });
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
  if (json) {
    printJson(io, { needs_attention: rows });
    return;
  }
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
