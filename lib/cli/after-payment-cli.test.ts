import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMULATED_PRICES } from "@/lib/billing/prices";
import { StripeBillingProvider } from "@/lib/billing/stripe/provider";
import { setupStripePrices } from "@/lib/billing/stripe/setup-prices";
import type { Bundle } from "@/lib/catalog";
import { organizations, refunds, simRefunds, topUps } from "@/lib/db/schema";
import { createOrganization, getOrganization } from "@/lib/points/accounts/organizations";
import { parseTopUpRequest } from "@/lib/points/api/top-up-request";
import { purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { quietly } from "@/lib/testing/after-payment";
import { type FakeStripe, startFakeStripe } from "@/lib/testing/fake-stripe/server";
import { backends, faultyProvider, withProvider } from "@/lib/testing/harness";
import {
  createTarget,
  expectRefused,
  parseJsonOutput,
  SPAWNING_TIMEOUT_MS,
  type Target,
} from "@/lib/testing/points-cli-fixture";

/*
 * The operator's commands after the charge: a refund (again, and by two operators at once), a
 * dispute taken from the provider's events and settled, Points spent. They run in this process
 * (Target.points), on the runtime the command would open over the same kind of database the app
 * uses, except the last refund, whose shortfall the service reports in a log line: that runs as a
 * process (Target.spawn), which prints its warnings on stderr beside its answer on stdout.
 */
describe.each(backends())(
  "refunds and disputes from npm run points against %s",
  { timeout: SPAWNING_TIMEOUT_MS },
  (backend) => {
    let target: Target;
    const points = (...args: string[]) => target.points(args);
    let organizationId = "";
    let refunded = "";
    let disputed = "";

    beforeAll(async () => {
      target = await createTarget(backend);
      // The database is made and migrated by the first command.
      expect((await points("reconcile")).code).toBe(0);
      await target.withDb(async (services) => {
        const { organization, paymentMethods } = await createOrganization(services, {
          name: "After payment",
          settings: { currency: "USD", apiPurchasesEnabled: true },
          cards: ["visa", "dispute"],
          defaultCardIndex: 0,
        });
        organizationId = organization.id;
        const buy = async (reference: string, points: number, paymentSourceId?: string) => {
          const request = parseTopUpRequest({
            points,
            reference,
            ...(paymentSourceId ? { payment_source_id: paymentSourceId } : {}),
          });
          const result = await purchasePoints(services, { organization, request, source: "api" });
          expect(result.topUp.status).toBe("paid");
          return result.topUp.id;
        };
        refunded = await buy("to-refund", 1000);
        disputed = await buy("to-dispute", 500, paymentMethods[1]?.id);
      });
    }, SPAWNING_TIMEOUT_MS);
    afterAll(async () => {
      await target?.dispose();
    });

    const state = () =>
      target.withDb(async (services) => {
        const [org] = await services.db.select().from(organizations).where(eq(organizations.id, organizationId));
        const rows = await services.db.select().from(topUps).where(eq(topUps.organizationId, organizationId));
        return {
          balance: org?.pointsBalance,
          held: org?.heldPoints,
          topUps: new Map(rows.map((row) => [row.id, row])),
        };
      });

    it("refunds part of a purchase, prints it, and the same command again refunds nothing more", async () => {
      const first = parseJsonOutput(
        await points("top-up", "refund", refunded, "--points", "250", "--reason", "duplicate order", "--json"),
      );
      expect(first).toMatchObject({
        top_up_id: refunded,
        organization_id: organizationId,
        status: "succeeded",
        points: 250,
        amount: 2125,
        currency: "USD",
        shortfall_points: 0,
        points_balance: 1250,
        replayed: false,
        failure: null,
      });
      expect(first.refund_id).toMatch(/^rf_/);
      const again = await points("top-up", "refund", refunded, "--points", "250", "--reason", "duplicate order");
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(new RegExp(`Already refunded 250 Points \\(\\$21\\.25\\) of ${refunded}`));
      const after = await state();
      expect(after.balance).toBe(1250);
      expect(after.topUps.get(refunded)).toMatchObject({ refundedPoints: 250, refundedAmount: 2125 });
    });

    it("refuses more Points than are left, exiting 1 with the reason and changing nothing", async () => {
      expectRefused(
        await points("top-up", "refund", refunded, "--points", "751"),
        /has 750 Points left to refund, not 751/,
      );
      expectRefused(await points("top-up", "refund", "tu_nobody"), /No top-up tu_nobody/);
      // It says which database it looked in, and that a Stripe purchase is kept where Stripe's variables lead.
      const unknown = await points("top-up", "refund", "tu_nobody");
      expect(unknown.stderr).toMatch(/No top-up tu_nobody in the (embedded database at \S+|database \S+) \(billing: /);
      expect(unknown.stderr).toContain("export STRIPE_SECRET_KEY");
      const usage = await points("top-up", "refund");
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/TOP_UP_ID/);
      expect((await state()).balance).toBe(1250);
    });

    it("refunds once when two operators run the same refund at once", async () => {
      const both = await target.runAll([
        ["top-up", "refund", refunded, "--points", "100", "--json"],
        ["top-up", "refund", refunded, "--points", "100", "--json"],
      ]);
      // One may find the provider still busy with the other's identical request: running it again settles it.
      const settled = await Promise.all(
        both.map(async (result) =>
          result.code === 0 ? result : points("top-up", "refund", refunded, "--points", "100", "--json"),
        ),
      );
      const outputs = settled.map((result) => parseJsonOutput(result));
      expect(new Set(outputs.map((output) => output.refund_id)).size).toBe(1);
      await target.withDb(async (services) => {
        const rows = await services.db.select().from(refunds).where(eq(refunds.topUpId, refunded));
        expect(rows.map((row) => row.points).sort()).toEqual([100, 250]);
        const [made] = await services.db.select().from(topUps).where(eq(topUps.id, refunded));
        const atProvider = await services.db
          .select()
          .from(simRefunds)
          .where(eq(simRefunds.paymentId, made?.providerPaymentId ?? ""));
        expect(atProvider).toHaveLength(2);
      });
      expect((await state()).balance).toBe(1150);
    });

    it("takes the dispute from the provider's events, settles it lost in test mode, and removes the Points", async () => {
      expect((await points("reconcile")).code).toBe(0);
      const opened = await state();
      expect(opened.topUps.get(disputed)).toMatchObject({
        disputeStatus: "open",
        disputePointsState: "held",
        disputePoints: 500,
      });
      expect(opened).toMatchObject({ balance: 650, held: 500 });
      expectRefused(await points("top-up", "refund", disputed), /no Points left to refund \(a dispute covers them\)/);
      const settled = parseJsonOutput(await points("dispute", "settle", disputed, "--outcome", "lost", "--json"));
      expect(settled).toMatchObject({
        top_up_id: disputed,
        status: "lost",
        points: 500,
        points_state: "removed",
        points_balance: 650,
      });
      expectRefused(await points("dispute", "settle", disputed, "--outcome", "won"), /is lost already/);
      expect(await state()).toMatchObject({ balance: 650, held: 0 });
      const report = parseJsonOutput(await points("reconcile", "--report", "--json"));
      expect(report).toEqual({
        needs_attention: [],
        unmatched_events: [],
        deferred_events: [],
        unanswered_refunds: [],
      });
    });

    it("records Points spent, never more than the spendable balance", async () => {
      const spent = parseJsonOutput(await points("org", "spend", organizationId, "--points", "600", "--json"));
      expect(spent).toEqual({
        organization_id: organizationId,
        spend_id: expect.stringMatching(/^sp_/),
        spend: expect.objectContaining({ points: 600, reference: expect.stringMatching(/^operator-/) }),
        points: 600,
        points_balance: 50,
        replayed: false,
      });
      expectRefused(await points("org", "spend", organizationId, "--points", "51"), /has 50 Points to spend, not 51/);
      // The rest of the partly refunded purchase: 650 Points, of which 600 were spent: a shortfall.
      const result = await target.spawn(["top-up", "refund", refunded, "--json"]);
      expect(result.code, result.stderr).toBe(0);
      // Reported to the operator on stderr; stdout stays one JSON object.
      expect(result.stderr).toMatch(/took 50 of 650 Points: 600 had been spent already \(shortfall\)/);
      const rest = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(rest).toMatchObject({ status: "succeeded", points: 650, shortfall_points: 600, points_balance: 0 });
      expect((await state()).topUps.get(refunded)).toMatchObject({ refundedPoints: 1000, refundedAmount: 8500 });
    });
  },
);

/*
 * The README's Stripe walkthrough as a new user tried it: a purchase charged through Stripe (its
 * test server), then `top-up refund` and `reconcile` run in a terminal without the Stripe variables,
 * and then with them. Only the provider that charged a purchase is asked about it; the other
 * refuses, saying what to set, and records nothing. Every command here runs as a process
 * (Target.spawn), since what it does depends on the STRIPE_* variables of its environment.
 */
describe.each(backends())(
  "npm run points with another provider than the one that charged (%s)",
  { timeout: SPAWNING_TIMEOUT_MS },
  (backend) => {
    let target: Target;
    let fake: FakeStripe;
    let stripeEnv: NodeJS.ProcessEnv;
    const secretKey = "sk_test_points_charged_by";
    let stripePaid = "";
    let stripeUnresolved = "";
    let simulatedPaid = "";

    beforeAll(async () => {
      target = await createTarget(backend);
      fake = await startFakeStripe({ apiKey: secretKey });
      const client = new Stripe(secretKey, {
        host: fake.host,
        port: fake.port,
        protocol: "http",
        maxNetworkRetries: 0,
      });
      await setupStripePrices(client, SIMULATED_PRICES);
      stripeEnv = { ...target.env, STRIPE_SECRET_KEY: secretKey, STRIPE_API_URL: fake.url };
      const create = async (env: NodeJS.ProcessEnv, name: string) =>
        String(
          parseJsonOutput(
            await target.spawn(
              [
                "org",
                "create",
                "--name",
                name,
                "--currency",
                "USD",
                "--api-purchases",
                "enabled",
                "--card",
                "visa",
                "--default-card",
                "0",
                "--json",
              ],
              env,
            ),
          ).organization_id,
        );
      const onStripe = await create(stripeEnv, "Stripe Org");
      const onSimulated = await create(target.env, "Simulated Org");
      await target.withDb(async (simulated) => {
        const stripe = withProvider(simulated, new StripeBillingProvider(client, simulated.clock, true));
        const buy = async (services: Services, organizationId: string, reference: string, points: Bundle) => {
          const organization = await getOrganization(services.db, organizationId);
          if (!organization) throw new Error(`no organisation ${organizationId}`);
          return purchasePoints(services, { organization, request: { points, reference }, source: "api" });
        };
        stripePaid = (await buy(stripe, onStripe, "stripe-paid", 500)).topUp.id;
        // Charged, and the answer lost: unresolved until Stripe is asked again.
        const lost = await quietly(() =>
          buy(
            withProvider(stripe, faultyProvider(stripe.provider, ["execute_then_throw"])),
            onStripe,
            "stripe-lost",
            100,
          ),
        );
        expect(lost.outcome).toBe("unresolved");
        stripeUnresolved = lost.topUp.id;
        simulatedPaid = (await buy(simulated, onSimulated, "simulated-paid", 250)).topUp.id;
      });
    }, SPAWNING_TIMEOUT_MS);
    afterAll(async () => {
      await fake?.close();
      await target?.dispose();
    });

    const refundsOf = (topUpId: string) =>
      target.withDb((services) => services.db.select().from(refunds).where(eq(refunds.topUpId, topUpId)));

    it("refuses to refund a Stripe purchase without the Stripe variables, saying so and recording nothing; with them it refunds", async () => {
      const refused = await target.spawn(["top-up", "refund", stripePaid, "--json"]);
      expectRefused(
        refused,
        new RegExp(
          `^Top-up ${stripePaid} was charged through Stripe; set STRIPE_SECRET_KEY \\(and STRIPE_API_URL for a test server\\) to refund it\\.\\nNothing was changed\\.\\n$`,
        ),
      );
      expect(await refundsOf(stripePaid)).toEqual([]);
      expect(fake.control.refunds()).toEqual([]);

      const refunded = parseJsonOutput(await target.spawn(["top-up", "refund", stripePaid, "--json"], stripeEnv));
      expect(refunded).toMatchObject({
        top_up_id: stripePaid,
        status: "succeeded",
        points: 500,
        replayed: false,
        failure: null,
      });
      expect(fake.control.refunds()).toHaveLength(1);
    });

    it("refuses to refund a simulated purchase with the Stripe variables set; without them it refunds", async () => {
      expectRefused(
        await target.spawn(["top-up", "refund", simulatedPaid, "--points", "100"], stripeEnv),
        new RegExp(
          `^Top-up ${simulatedPaid} was charged through the simulated billing provider; unset STRIPE_SECRET_KEY to refund it\\.`,
        ),
      );
      expect(await refundsOf(simulatedPaid)).toEqual([]);
      const refunded = parseJsonOutput(
        await target.spawn(["top-up", "refund", simulatedPaid, "--points", "100", "--json"]),
      );
      expect(refunded).toMatchObject({ status: "succeeded", points: 100, replayed: false });
    });

    it("reconciles an unresolved Stripe purchase only with the Stripe variables: without them it is skipped and listed", async () => {
      const without = await target.spawn(["reconcile", "--json"]);
      expect(without.code, without.stderr).toBe(0);
      expect(without.stderr).toContain(
        `Skipped ${stripeUnresolved} (processing): Top-up ${stripeUnresolved} was charged through Stripe; set STRIPE_SECRET_KEY`,
      );
      const skipped = JSON.parse(without.stdout) as {
        settled: { top_up_id: string }[];
        skipped: Record<string, unknown>[];
      };
      expect(skipped.settled.map((row) => row.top_up_id)).not.toContain(stripeUnresolved);
      expect(skipped.skipped).toEqual([
        expect.objectContaining({ top_up_id: stripeUnresolved, status: "processing", charged_by: "stripe" }),
      ]);
      const before = await target.withDb(
        async (services) => (await services.db.select().from(topUps).where(eq(topUps.id, stripeUnresolved)))[0],
      );
      expect(before).toMatchObject({ status: "processing", attempts: 1 });

      const settled = parseJsonOutput(await target.spawn(["reconcile", "--json"], stripeEnv));
      expect(settled).toEqual({
        settled: [expect.objectContaining({ top_up_id: stripeUnresolved, status: "paid" })],
        skipped: [],
      });
    });
  },
);
