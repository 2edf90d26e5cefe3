import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isCurrency } from "@/lib/catalog";
import { events } from "@/lib/db/schema";
import { randomString } from "@/lib/ids";
import { backends, type ProviderTestContext, patchProvider, withProvider } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { type StripeWebhookEndpoint, startStripeWebhookEndpoint } from "@/lib/testing/stripe-webhooks";
import { createOrganization, requireOrganization } from "../accounts/organizations";
import { listAudit } from "../audit";
import { finishAddingCard, startAddingCard } from "../cards/card-setup";
import { removeCard } from "../cards/remove-card";
import { saveSettings } from "../cards/settings";
import { listEvents } from "../events/events";

/*
 * What an integrator sees when an organisation's cards change at Stripe, through this service's
 * pages or anywhere else (Stripe's dashboard, another integration): one `payment_methods.updated`
 * per real change in the organisation's events, however many of Stripe's webhooks and this
 * service's own pages report it, in whatever order.
 */
describe.each(backends())("cards changed at Stripe, as the organisation's events say (%s)", (backend) => {
  let ctx: ProviderTestContext;
  let endpoint: StripeWebhookEndpoint;
  const track = serviceSuite(backend, "stripe", (made) => {
    ctx = made;
  });
  const fake = () => {
    if (!ctx.stripe) throw new Error("no Stripe test server");
    return ctx.stripe.fake;
  };
  const stripe = (): Stripe => {
    if (!ctx.stripe) throw new Error("no Stripe test server");
    return ctx.stripe.client;
  };
  /** Every webhook delivered so far has been answered. */
  const settle = () => fake().control.settled();

  beforeAll(async () => {
    endpoint = await startStripeWebhookEndpoint(ctx, fake());
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  /** An organisation whose provisioning webhooks are all in: its feed is read from here on. */
  async function organisation(cards: string[], defaultCardIndex?: number) {
    const made = await createOrganization(ctx, { name: `Cards ${randomString(4)}`, cards, defaultCardIndex });
    track(made.organization.id);
    await settle();
    const id = made.organization.id;
    const since = (await requireOrganization(ctx.db, id)).eventSequence;
    const feed = async () => {
      const page = await listEvents(ctx.db, id, { after: since, limit: 100 });
      return page.events.map((event) => [event.type, event.data]);
    };
    const audited = async () =>
      (await listAudit(ctx.db, { organizationId: id }))
        .filter((entry) => entry.action.startsWith("payment_method."))
        .map((entry) => [entry.action, entry.target])
        .reverse();
    const setDefaultAtStripe = async (paymentMethodId: string) => {
      await stripe().customers.update(made.organization.billingCustomerId, {
        invoice_settings: { default_payment_method: paymentMethodId },
      });
      await settle();
    };
    return {
      ...made,
      customer: made.organization.billingCustomerId,
      ids: made.paymentMethods.map((method) => method.id),
      feed,
      audited,
      setDefaultAtStripe,
    };
  }

  const changed = (change: string, id: string | null) => ["payment_methods.updated", { change, payment_method_id: id }];

  it("announces a card attached, made the default and detached at Stripe once each, and audits none of them", async () => {
    const org = await organisation(["visa"], 0);
    const [visa = ""] = org.ids;
    const audited = await org.audited();
    // Delivered twice at once: still one event.
    fake().control.duplicateNextDelivery();
    const mastercard = await stripe().paymentMethods.attach("pm_card_mastercard", { customer: org.customer });
    await settle();
    await org.setDefaultAtStripe(mastercard.id);
    await stripe().paymentMethods.detach(visa);
    await settle();
    // Stripe delivers an event again: nothing is announced twice.
    const attached = fake()
      .control.events()
      .find((event) => event.type === "payment_method.attached" && event.data.object.id === mastercard.id);
    expect(await fake().control.redeliver(attached?.id ?? "")).toBe(200);
    // Detaching the default leaves none; the removal says so, with no event of its own for the default.
    await stripe().paymentMethods.detach(mastercard.id);
    await settle();

    expect(await org.feed()).toEqual([
      changed("added", mastercard.id),
      changed("default", mastercard.id),
      changed("removed", visa),
      changed("removed", mastercard.id),
    ]);
    // Nobody of this service made these changes: no user, API key or operator to name.
    expect(await org.audited()).toEqual(audited);
    expect(
      fake()
        .control.deliveries()
        .filter((delivery) => delivery.status !== 200),
    ).toEqual([]);
  });

  it("announces a default that goes A, B, then A again three times, whoever changed it, and a default cleared", async () => {
    const org = await organisation(["visa", "mastercard"]);
    const [a = "", b = ""] = org.ids;
    await org.setDefaultAtStripe(a);
    const { apiPurchasesEnabled, currency } = org.organization;
    await saveSettings(ctx, org.organization.id, {
      apiPurchasesEnabled,
      currency: isCurrency(currency) ? currency : null,
      defaultPaymentMethodId: b,
    });
    await settle();
    await org.setDefaultAtStripe(a);
    await stripe().customers.update(org.customer, { invoice_settings: { default_payment_method: "" } });
    await settle();

    expect(await org.feed()).toEqual([
      changed("default", a),
      changed("default", b),
      changed("default", a),
      changed("default", null),
    ]);
    // Only the admin's choice is theirs to answer for.
    expect(await org.audited()).toEqual([["payment_method.default_changed", b]]);
  });

  it("announces the default as it is when Stripe's webhooks come late and newest first, never a stale one", async () => {
    const org = await organisation(["visa", "mastercard"]);
    const [a = "", b = ""] = org.ids;
    await org.setDefaultAtStripe(a);
    fake().control.holdDeliveries();
    await org.setDefaultAtStripe(b);
    await org.setDefaultAtStripe(a);
    await fake().control.releaseDeliveries("reverse");
    await settle();
    // Believed, the older event (A to B) would have the last word; Stripe's default is A, as announced.
    expect(await org.feed()).toEqual([changed("default", a)]);
  });

  it("announces the default Stripe's event names while Stripe cannot list the cards, and answers the webhook", async () => {
    const org = await organisation(["visa", "mastercard"]);
    const [a = "", b = ""] = org.ids;
    await org.setDefaultAtStripe(a);
    const answered = fake().control.deliveries().length;
    fake().control.fault({ method: "GET", path: "/v1/payment_methods", kind: "500_before", times: Infinity });
    try {
      await org.setDefaultAtStripe(b);
    } finally {
      fake().control.clearFaults();
    }
    expect(await org.feed()).toEqual([changed("default", a), changed("default", b)]);
    const later = fake().control.deliveries().slice(answered);
    expect(later.map((entry) => [entry.type, entry.status])).toEqual([["customer.updated", 200]]);
  });

  it("announces a card removed in the dashboard once, whether Stripe's webhook comes after or before", async () => {
    const org = await organisation(["visa", "mastercard", "authentication_required"], 0);
    const [visa = "", mastercard = "", third = ""] = org.ids;
    await removeCard(ctx, org.organization.id, mastercard);
    await settle();
    // The default card: its removal leaves no default, which is no news of its own.
    await removeCard(ctx, org.organization.id, visa);
    await settle();
    // Stripe's webhook handled while the removal is still on its way back.
    const removePaymentMethod = async (customerId: string, paymentMethodId: string) => {
      const removed = await ctx.provider.removePaymentMethod(customerId, paymentMethodId);
      await settle();
      return removed;
    };
    const webhookFirst = withProvider(ctx, patchProvider(ctx.provider, { removePaymentMethod }));
    await removeCard(webhookFirst, org.organization.id, third);
    await settle();

    expect(await org.feed()).toEqual([
      changed("removed", mastercard),
      changed("removed", visa),
      changed("removed", third),
    ]);
    // Each is the admin's, even the one Stripe's webhook announced first.
    expect(await org.audited()).toEqual([
      ["payment_method.removed", mastercard],
      ["payment_method.removed", visa],
      ["payment_method.removed", third],
    ]);
  });

  /** The admin saves a card on Stripe Checkout's page; answers the session, once Stripe has sent it back. */
  async function saveAtCheckout(organizationId: string, token: string, startedBy?: string): Promise<string> {
    const url = await startAddingCard(ctx, organizationId, "http://127.0.0.1:9", startedBy);
    const saved = await fetch(url, { method: "POST", body: new URLSearchParams({ card: token }), redirect: "manual" });
    expect(saved.status).toBe(303);
    const back = new URL(saved.headers.get("location") ?? "");
    return back.searchParams.get("session_id") ?? "";
  }

  it("announces a card saved at Checkout once, from its return page (loaded twice) and Stripe's two webhooks", async () => {
    const org = await organisation(["visa"], 0);
    const sessionId = await saveAtCheckout(org.organization.id, "pm_card_mastercard");
    await settle();
    expect(await finishAddingCard(ctx, org.organization.id, sessionId)).toBe(true);
    expect(await finishAddingCard(ctx, org.organization.id, sessionId)).toBe(true);
    // The return page first, then the webhooks.
    fake().control.holdDeliveries();
    const secondId = await saveAtCheckout(org.organization.id, "pm_card_authenticationRequired");
    expect(await finishAddingCard(ctx, org.organization.id, secondId)).toBe(true);
    await fake().control.releaseDeliveries();
    await settle();

    const cards = (await ctx.provider.listPaymentMethods(org.customer)).map((method) => method.id);
    const [second = "", first = ""] = cards.filter((id) => !org.ids.includes(id));
    expect(await org.feed()).toEqual([changed("added", first), changed("added", second)]);
    // Audited once each, as the admin's, however often the page was loaded.
    expect(await org.audited()).toEqual([
      ["payment_method.added", first],
      ["payment_method.added", second],
    ]);
  });

  it("audits a card saved at Checkout as the admin who started it, though only Stripe's webhook came back", async () => {
    const org = await organisation(["visa"], 0);
    const admin = org.admin.userId;
    const sessionId = await saveAtCheckout(org.organization.id, "pm_card_mastercard", admin);
    await settle();
    const [card = ""] = (await ctx.provider.listPaymentMethods(org.customer))
      .map((method) => method.id)
      .filter((id) => !org.ids.includes(id));
    expect(await org.feed()).toEqual([changed("added", card)]);
    const entries = (await listAudit(ctx.db, { organizationId: org.organization.id })).filter(
      (entry) => entry.action === "payment_method.added",
    );
    expect(entries.map((entry) => [entry.target, entry.actorType, entry.actorId])).toEqual([[card, "user", admin]]);
    // The admin's late return adds nothing.
    expect(await finishAddingCard(ctx, org.organization.id, sessionId)).toBe(true);
    expect(await org.audited()).toEqual([["payment_method.added", card]]);
    expect(await org.feed()).toEqual([changed("added", card)]);
  });

  it("announces an organisation's first card saved at Checkout once, and its becoming the default once", async () => {
    const org = await organisation([]);
    const sessionId = await saveAtCheckout(org.organization.id, "pm_card_visa");
    expect(await finishAddingCard(ctx, org.organization.id, sessionId)).toBe(true);
    await settle();
    const [card] = await ctx.provider.listPaymentMethods(org.customer);
    expect(card?.isDefault).toBe(true);
    expect(await org.feed()).toEqual([changed("added", card?.id ?? ""), changed("default", card?.id ?? "")]);
  });

  it("ignores the cards of a Stripe customer no organisation has, and announces nothing", async () => {
    const before = await ctx.db.$count(events);
    const from = endpoint.receipts.length;
    const stranger = await stripe().customers.create({ name: "Someone else's" });
    const card = await stripe().paymentMethods.attach("pm_card_visa", { customer: stranger.id });
    await stripe().customers.update(stranger.id, { invoice_settings: { default_payment_method: card.id } });
    await stripe().paymentMethods.detach(card.id);
    await settle();

    const receipts = endpoint.receipts
      .slice(from)
      .filter((receipt) => receipt.type !== "customer.created")
      .map((receipt) => [receipt.type, receipt.result, receipt.detail]);
    const ignored = (type: string) => [type, "ignored", "no organisation has this customer"];
    // Attached, made the default, detached, and (the default gone with it) the customer updated.
    expect(receipts).toHaveLength(4);
    expect(receipts).toEqual(
      expect.arrayContaining([
        ignored("payment_method.attached"),
        ignored("customer.updated"),
        ignored("payment_method.detached"),
      ]),
    );
    expect(await ctx.db.$count(events)).toBe(before);
  });
});
