import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookEndpoints } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { createOrganization } from "@/lib/points/accounts/organizations";
import { emitTopUpEvent } from "@/lib/points/events/events";
import { purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { backendsAndProviders, expectPointsError, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { startReceiver } from "@/lib/testing/webhook-receiver";
import { RETRY_DELAYS_MS } from "./attempt-outcome";
import { CLAIM_MS, claimDeliveries } from "./claim";
import { addEndpoint, listAttempts, listDeliveries, redeliver, rotateSecret, setEndpointStatus } from "./endpoints";
import { recoverEndpoint } from "./recover";
import { WebhookSender } from "./sender";

describe.each(backendsAndProviders())("Webhook delivery (%s, %s provider)", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  // The jitter's draw fixed at its middle: each retry waits the schedule's time exactly.
  const sender = (services: Services = ctx, options = {}) =>
    new WebhookSender(services, { allowPrivate: true, timeoutMs: 2_000, random: () => 0.5, ...options });

  async function setup(cards: string[] = ["visa"], events?: string[]) {
    receiver.received.length = 0;
    receiver.answerWith(() => 200);
    const { organization } = await createOrganization(ctx, {
      name: `Hooks ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex: 0,
    });
    track(organization.id);
    const { endpoint, secret } = await addEndpoint(ctx, organization.id, {
      url: receiver.url,
      events,
      allowPrivate: true,
    });
    const buy = (reference: string, services: Services = ctx) =>
      purchasePoints(services, { organization, request: { points: 100, reference }, source: "api" });
    return { organization, endpoint, secret, buy };
  }

  it("signs every delivery as Standard Webhooks says, and a receiver finds no gap in the sequence", async () => {
    const { organization, secret, buy } = await setup();
    for (let index = 1; index <= 5; index++) await buy(`hook-${index}`);
    await sender().drain();
    const events = receiver.verified(secret);
    expect(events.map((event) => event.sequence).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(events.every((event) => event.type === "top_up.paid")).toBe(true);
    expect(receiver.received.map((got) => got.id).sort()).toEqual(events.map((event) => event.id).sort());
    expect(events[0]).toMatchObject({ organization_id: organization.id, data: { top_up: { status: "paid" } } });
    // Another secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.from(randomString(24)).toString("base64")}`).verify(
        receiver.received[0]?.body ?? "",
        {
          "webhook-id": receiver.received[0]?.id ?? "",
          "webhook-timestamp": receiver.received[0]?.timestamp ?? "",
          "webhook-signature": receiver.received[0]?.signature ?? "",
        },
      ),
    ).toThrow();
  });

  it("sends only the types an endpoint asked for", async () => {
    const { buy } = await setup(["declined"], ["top_up.failed"]);
    await buy("only-failed");
    await sender().drain();
    expect(receiver.received.map((got) => JSON.parse(got.body).type)).toEqual(["top_up.failed"]);
  });

  it("retries a failed delivery within 10 s, then backs off, with every attempt in the log", async () => {
    const { endpoint, buy } = await setup();
    let calls = 0;
    receiver.answerWith(() => (++calls <= 2 ? 503 : 200));
    await buy("retry-me");
    await sender().drain();
    let [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: 503 });
    expect(delivery?.nextAttemptAt?.getTime()).toBe(ctx.clock.now().getTime() + RETRY_DELAYS_MS[0]);
    expect(RETRY_DELAYS_MS[0]).toBeLessThanOrEqual(10_000);

    ctx.clock.advance(RETRY_DELAYS_MS[0]);
    await sender().drain();
    [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery).toMatchObject({ status: "pending", attempts: 2 });
    expect(delivery?.nextAttemptAt?.getTime()).toBe(ctx.clock.now().getTime() + RETRY_DELAYS_MS[1]);
    ctx.clock.advance(RETRY_DELAYS_MS[1] - 1);
    await sender().drain();
    expect(receiver.received).toHaveLength(2); // not yet due
    ctx.clock.advance(1);
    await sender().drain();
    [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, lastResponseStatus: 200 });
    const attempts = await listAttempts(ctx.db, delivery as NonNullable<typeof delivery>);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.responseStatus])).toEqual([
      [1, 503],
      [2, 503],
      [3, 200],
    ]);
    expect(new Set(receiver.received.map((got) => got.id)).size).toBe(1); // the same webhook-id every time
  });

  it("waits as a 429's Retry-After asks, within reason, and a minute at least after a timeout", async () => {
    const { endpoint, buy } = await setup();
    receiver.answerWith(() => ({ status: 429, headers: { "retry-after": "90" } }));
    await buy("too-many");
    await sender().drain();
    let [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: 429 });
    expect(delivery?.nextAttemptAt?.getTime()).toBe(ctx.clock.now().getTime() + 90_000);

    receiver.answerWith(() => "hang");
    ctx.clock.advance(90_000);
    await sender(ctx, { timeoutMs: 200, random: () => 0 }).drain();
    [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery).toMatchObject({ status: "pending", attempts: 2, lastResponseStatus: null });
    expect(delivery?.nextAttemptAt?.getTime()).toBe(ctx.clock.now().getTime() + 60_000);
  });

  it("gives a delivery up after 3 days of failures and disables the endpoint; an admin enables it again", async () => {
    const { endpoint, buy } = await setup();
    receiver.answerWith(() => 500);
    await buy("dead-receiver");
    await sender().drain();
    for (let step = 0; step < 40; step++) {
      const [delivery] = await listDeliveries(ctx.db, endpoint);
      if (delivery?.status !== "pending" || !delivery.nextAttemptAt) break;
      ctx.clock.advance(delivery.nextAttemptAt.getTime() - ctx.clock.now().getTime());
      await sender().drain();
    }
    const [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery?.status).toBe("failed");
    expect(delivery?.attempts).toBe(13); // 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then every 12 h to 3 days
    const [disabled] = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(disabled).toMatchObject({ status: "disabled", disabledReason: "every delivery failed for 3 days" });

    // Disabled, it is sent nothing; enabled again, it gets what is committed from then on.
    receiver.answerWith(() => 200);
    await buy("while-disabled");
    await sender().drain();
    const before = receiver.received.length;
    await setEndpointStatus(ctx, endpoint.id, "enabled");
    await buy("after-enabling");
    await sender().drain();
    expect(receiver.received.slice(before).map((got) => JSON.parse(got.body).data.top_up.reference)).toEqual([
      "after-enabling",
    ]);
  });

  it("disables the endpoint at once when it answers 410 Gone", async () => {
    const { endpoint, buy } = await setup();
    receiver.answerWith(() => 410);
    await buy("gone-1");
    await buy("gone-2");
    await sender(ctx, { perEndpoint: 1 }).drain();
    const [row] = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ status: "disabled", disabledReason: "the endpoint answered 410 Gone" });
    expect(receiver.received).toHaveLength(1);
    expect((await listDeliveries(ctx.db, endpoint)).map((delivery) => delivery.status)).toEqual(["failed", "failed"]);
  });

  it("signs with both secrets for 24 hours after a rotation, then with the new one only", async () => {
    const { endpoint, secret: oldSecret, buy } = await setup();
    const { secret: newSecret } = await rotateSecret(ctx, endpoint.id);
    await buy("rotated-1");
    await sender().drain();
    expect(receiver.verified(oldSecret)).toHaveLength(1);
    expect(receiver.verified(newSecret)).toHaveLength(1);
    expect(receiver.received[0]?.signature.split(" ")).toHaveLength(2);

    ctx.clock.advance(24 * 3_600_000 + 1);
    receiver.received.length = 0;
    await buy("rotated-2");
    await sender().drain();
    expect(receiver.verified(newSecret)).toHaveLength(1);
    expect(() => receiver.verified(oldSecret)).toThrow();
  });

  it("keeps every secret rotated in the last 24 hours signing: rotating twice does not drop the first", async () => {
    const { endpoint, secret: first, buy } = await setup();
    const { secret: second } = await rotateSecret(ctx, endpoint.id);
    ctx.clock.advance(3_600_000);
    const { secret: third } = await rotateSecret(ctx, endpoint.id);
    await buy("twice-1");
    await sender().drain();
    for (const secret of [first, second, third]) expect(receiver.verified(secret)).toHaveLength(1);
    expect(receiver.received[0]?.signature.split(" ")).toHaveLength(3);

    // A day after the first rotation the first secret stops; the second signs an hour more.
    ctx.clock.advance(23 * 3_600_000 + 1);
    receiver.received.length = 0;
    await buy("twice-2");
    await sender().drain();
    expect(receiver.verified(third)).toHaveLength(1);
    expect(receiver.verified(second)).toHaveLength(1);
    expect(() => receiver.verified(first)).toThrow();
  });

  it("sends nothing for a change that rolled back", async () => {
    const { organization, buy } = await setup();
    const paid = await buy("kept");
    await sender().drain();
    receiver.received.length = 0;
    await expect(
      ctx.db.transaction(async (tx) => {
        await emitTopUpEvent(
          tx,
          { id: paid.topUp.id, organizationId: organization.id },
          "top_up.refunded",
          ctx.clock.now(),
        );
        throw new Error("rolled back (injected)");
      }),
    ).rejects.toThrow("injected");
    await sender().drain();
    expect(receiver.received).toEqual([]);
  });

  it("fans out at most a batch of events per pass, shared among the endpoints behind, each from its own mark", async () => {
    const { organization, endpoint, buy } = await setup(["visa"]);
    const { endpoint: failedOnly } = await addEndpoint(ctx, organization.id, {
      url: receiver.url,
      events: ["top_up.failed"],
      allowPrivate: true,
    });
    const other = await setup(["visa"]);
    for (const reference of ["page-1", "page-2", "page-3"]) {
      await buy(reference);
      await other.buy(reference);
    }
    const { fanOut } = await import("./fan-out");
    const made = async () =>
      Promise.all(
        [endpoint, failedOnly, other.endpoint].map(async (each) =>
          (await listDeliveries(ctx.db, each)).map((delivery) => delivery.eventSequence).sort((a, b) => a - b),
        ),
      );
    const marks = async () =>
      (await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, organization.id)))
        .map((row) => [row.id, row.fannedOutThrough])
        .sort();
    // Nine events owed (the failed-only endpoint's three make no delivery), three per pass: one
    // each, so no endpoint waits behind another's backlog, and each gets the start of what it is owed.
    await fanOut(ctx, 3);
    expect(await made()).toEqual([[1], [], [1]]);
    expect(await marks()).toEqual(
      [
        [endpoint.id, 1],
        [failedOnly.id, 1],
      ].sort(),
    );
    await fanOut(ctx, 3);
    await fanOut(ctx, 3);
    expect(await made()).toEqual([[1, 2, 3], [], [1, 2, 3]]);
    await fanOut(ctx, 3);
    expect(await made()).toEqual([[1, 2, 3], [], [1, 2, 3]]);
    await sender().drain();
    expect(receiver.received).toHaveLength(6);
  });

  it("a sender that dies after claiming leaves its deliveries to another once the claim runs out, never at once", async () => {
    const { endpoint, buy } = await setup();
    await buy("orphan-1");
    await buy("orphan-2");
    const { fanOut } = await import("./fan-out");
    await fanOut(ctx);
    const claimed = await claimDeliveries(ctx, { max: 10, perEndpoint: 10, perOrganization: 10 }); // then it dies
    expect(claimed).toHaveLength(2);
    await sender().drain();
    expect(receiver.received).toEqual([]); // claimed by the dead sender: nobody else sends them yet
    ctx.clock.advance(CLAIM_MS);
    await sender().drain();
    expect(receiver.received.map((got) => JSON.parse(got.body).data.top_up.reference).sort()).toEqual([
      "orphan-1",
      "orphan-2",
    ]);
    const deliveries = await listDeliveries(ctx.db, endpoint);
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual([
      ["delivered", 2],
      ["delivered", 2],
    ]);
  });

  it("a slow receiver holds only its own deliveries: another organisation's arrive meanwhile", async () => {
    const slow = await setup();
    receiver.answerWith((got) => (JSON.parse(got.body).organization_id === slow.organization.id ? "hang" : 200));
    await slow.buy("slow-1");
    const { organization: other } = await createOrganization(ctx, {
      name: `Fast ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(other.id);
    await addEndpoint(ctx, other.id, { url: receiver.url, allowPrivate: true });
    await purchasePoints(ctx, { organization: other, request: { points: 100, reference: "fast-1" }, source: "api" });
    const running = sender(ctx, { timeoutMs: 700 });
    const started = Date.now();
    await running.tick();
    await expect
      .poll(() => receiver.received.filter((got) => JSON.parse(got.body).organization_id === other.id).length)
      .toBe(1);
    expect(Date.now() - started).toBeLessThan(700);
    await running.idle();
    const [slowDelivery] = await listDeliveries(ctx.db, slow.endpoint);
    expect(slowDelivery).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: null });
    expect(slowDelivery?.lastError).toMatch(/timed out/);
  });

  it("one organisation's 16 hanging endpoints hold at most its share: another's delivery goes at once", async () => {
    const bad = await setup();
    for (let more = 1; more < 16; more++) {
      await addEndpoint(ctx, bad.organization.id, { url: receiver.url, allowPrivate: true });
    }
    const organizationOf = (got: { body: string }) => JSON.parse(got.body).organization_id as string;
    receiver.answerWith((got) => (organizationOf(got) === bad.organization.id ? "hang" : 200));
    for (let index = 0; index < 6; index++) await bad.buy(`backlog-${index}`); // 96 deliveries, all older
    const { organization: other } = await createOrganization(ctx, {
      name: `Healthy ${randomString(4)}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    track(other.id);
    await addEndpoint(ctx, other.id, { url: receiver.url, allowPrivate: true });
    await purchasePoints(ctx, { organization: other, request: { points: 100, reference: "healthy" }, source: "api" });
    receiver.open.most = 0;
    const running = sender(ctx, { timeoutMs: 1_500 });
    try {
      const started = Date.now();
      await running.tick();
      await expect.poll(() => receiver.received.filter((got) => organizationOf(got) === other.id).length).toBe(1);
      expect(Date.now() - started).toBeLessThan(1_000);
      // Of the 32 slots, the hanging organisation holds its 8 and no more. Its 8 requests left with the
      // healthy one, and may reach the receiver a moment after it.
      await expect
        .poll(() => receiver.received.filter((got) => organizationOf(got) === bad.organization.id).length)
        .toBe(8);
      expect(receiver.open.most).toBeLessThanOrEqual(9);
    } finally {
      await running.stop();
    }
  });

  it("never has more sends in flight than its capacity, however its claims overlap", async () => {
    const { organization, buy } = await setup();
    receiver.answerWith(() => ({ status: 200, afterMs: 25 }));
    for (let index = 0; index < 24; index++) await buy(`busy-${index}`);
    const ours = () => receiver.received.filter((got) => JSON.parse(got.body).organization_id === organization.id);
    receiver.open.most = 0;
    const running = sender(ctx, { capacity: 3, perEndpoint: 10, perOrganization: 10 });
    const deadline = Date.now() + 10_000;
    while (ours().length < 24 && Date.now() < deadline) {
      await running.tick();
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await running.idle();
    expect(ours()).toHaveLength(24);
    expect(receiver.open.most).toBeLessThanOrEqual(3);
  });

  it("sends to a failing endpoint one at a time, so it is slowed rather than given every free slot", async () => {
    const { endpoint, buy } = await setup();
    for (let index = 0; index < 5; index++) await buy(`failing-${index}`);
    await ctx.db
      .update(webhookEndpoints)
      .set({ failingSince: ctx.clock.now() })
      .where(eq(webhookEndpoints.id, endpoint.id));
    receiver.answerWith(() => ({ status: 200, afterMs: 300 }));
    const running = sender();
    await running.tick();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.received).toHaveLength(1);
    await running.stop();
  });

  it("sends again by hand a delivery that was given up", async () => {
    const { organization, endpoint, buy } = await setup();
    receiver.answerWith(() => 410);
    await buy("again");
    await sender().drain();
    await setEndpointStatus(ctx, endpoint.id, "enabled");
    receiver.answerWith(() => 200);
    const [given] = await listDeliveries(ctx.db, endpoint);
    await redeliver(ctx, organization.id, given?.id ?? "");
    await sender().drain();
    const [delivery] = await listDeliveries(ctx.db, endpoint);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("recovers what an endpoint missed since a time: while disabled, and given up; each once, in sequence order", async () => {
    const { endpoint, buy } = await setup();
    const since = ctx.clock.now();
    await buy("before"); // 1, delivered
    await sender().drain();
    await setEndpointStatus(ctx, endpoint.id, "disabled");
    await buy("while-off-1"); // 2 and 3: no delivery while disabled
    await buy("while-off-2");
    await setEndpointStatus(ctx, endpoint.id, "enabled");
    receiver.answerWith(() => 410);
    await buy("gone"); // 4: given up, and the endpoint disabled by the 410
    await sender().drain();
    await setEndpointStatus(ctx, endpoint.id, "enabled");
    receiver.answerWith(() => 200);
    receiver.received.length = 0;

    expect((await recoverEndpoint(ctx, endpoint.id, since)).queued).toBe(3);
    await sender(ctx, { perEndpoint: 1 }).drain();
    const sent = () => receiver.received.map((got) => JSON.parse(got.body).sequence as number);
    expect(sent()).toEqual([2, 3, 4]);
    // Again: nothing is missed any more, so nothing is sent twice.
    expect((await recoverEndpoint(ctx, endpoint.id, since)).queued).toBe(0);
    await sender().drain();
    expect(sent()).toEqual([2, 3, 4]);
    const deliveries = await listDeliveries(ctx.db, endpoint);
    expect(deliveries.map((delivery) => [delivery.eventSequence, delivery.status]).sort()).toEqual([
      [1, "delivered"],
      [2, "delivered"],
      [3, "delivered"],
      [4, "delivered"],
    ]);
  });

  it("recovers only from a time in the past, and only to an enabled endpoint", async () => {
    const { endpoint } = await setup();
    const future = await expectPointsError(() =>
      recoverEndpoint(ctx, endpoint.id, new Date(ctx.clock.now().getTime() + 60_000)),
    );
    expect([future.code, future.details.fields]).toEqual(["invalid_request", { since: expect.any(String) }]);
    await setEndpointStatus(ctx, endpoint.id, "disabled");
    const disabled = await expectPointsError(() => recoverEndpoint(ctx, endpoint.id, new Date(0)));
    expect(disabled.message).toMatch(/enable it first/);
    expect((await expectPointsError(() => recoverEndpoint(ctx, "we_nope", new Date(0)))).code).toBe("not_found");
  });

  it("records a delivery the address guard refused as refused, and npm run dev's loopback default delivers it", async () => {
    const { endpoint, buy } = await setup();
    await buy("guarded");
    // A production sender (no relaxation) meets the receiver on 127.0.0.1 over http: nothing is sent.
    await sender(ctx, { allowPrivate: false, allowLoopback: false }).drain();
    expect(receiver.received).toHaveLength(0);
    const [refused] = await listDeliveries(ctx.db, endpoint);
    expect(refused).toMatchObject({ status: "pending", lastResponseStatus: null });
    expect(refused?.lastError).toMatch(/^refused: The URL must use https\. .*POINTS_WEBHOOKS_ALLOW_PRIVATE=1/);
    // Under npm run dev a receiver on this machine is allowed: the same delivery, due again, arrives.
    await ctx.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(0) })
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
    await sender(ctx, { allowPrivate: false, allowLoopback: true }).drain();
    expect(receiver.received).toHaveLength(1);
    expect((await listDeliveries(ctx.db, endpoint))[0]).toMatchObject({ status: "delivered", lastError: null });
  });

  it("refuses a private or plain-http target unless private targets are allowed", async () => {
    const { organization } = await setup();
    for (const url of [
      "http://hooks.example.com/x",
      "https://127.0.0.1/x",
      "https://10.1.2.3/x",
      "https://localhost/x",
    ]) {
      const error = await expectPointsError(() => addEndpoint(ctx, organization.id, { url, allowPrivate: false }));
      expect([error.code, Object.keys(error.details.fields as object)]).toEqual(["invalid_request", ["url"]]);
    }
    const unknown = await expectPointsError(() =>
      addEndpoint(ctx, organization.id, {
        url: "https://hooks.example.com/x",
        events: ["top_up.nope"],
        allowPrivate: false,
      }),
    );
    expect(unknown.details.fields).toEqual({ events: expect.stringContaining("top_up.nope") });
    const { endpoint } = await addEndpoint(ctx, organization.id, {
      url: "https://hooks.example.com/x",
      allowPrivate: false,
    });
    expect(endpoint.url).toBe("https://hooks.example.com/x");
  });
});
