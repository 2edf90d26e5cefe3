import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { topUps } from "@/lib/db/schema";
import {
  backendsAndProviders,
  expectPointsError,
  type ProviderTestContext,
  patchProvider,
  TestClock,
  withProvider,
} from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import { type CreateOrganizationInput, createOrganization } from "../accounts/organizations";
import { purchasePoints, resolveCurrency } from "../purchase";
import type { Services } from "../services";
import { listUsablePaymentMethods, type PaymentMethod, resolvePaymentMethod } from "./payment-methods";

const pointsError = expectPointsError;

function method(id: string, isDefault = false): PaymentMethod {
  return {
    id,
    label: `Visa •••• ${id}`,
    type: "card",
    brand: "visa",
    last4: "4242",
    expMonth: 12,
    expYear: 2030,
    isDefault,
  };
}

describe("resolveCurrency", () => {
  it("uses the request's currency over the organisation's saved one", () => {
    expect(resolveCurrency({ currency: "GBP" }, "USD")).toBe("USD");
  });

  it("falls back to the organisation's saved currency when the request has none", () => {
    expect(resolveCurrency({ currency: "EUR" }, undefined)).toBe("EUR");
  });

  it("uses the request's currency when nothing is saved", () => {
    expect(resolveCurrency({ currency: null }, "GBP")).toBe("GBP");
  });

  it("answers currency_required (422) when neither the request nor the organisation names one", async () => {
    const error = await pointsError(() => resolveCurrency({ currency: null }, undefined));
    expect(error.code).toBe("currency_required");
    expect(error.status).toBe(422);
    expect(error.details).toEqual({ fields: { currency: expect.any(String) } });
  });
});

describe("resolvePaymentMethod on a given list", () => {
  it("picks the default when the request names none, even if it is not first", () => {
    expect(resolvePaymentMethod([method("a"), method("b", true)], undefined).id).toBe("b");
  });

  it("picks the only method when there is no default", () => {
    expect(resolvePaymentMethod([method("a")], undefined).id).toBe("a");
  });

  it("answers payment_method_required when there are several and no default", async () => {
    const error = await pointsError(() => resolvePaymentMethod([method("a"), method("b")], undefined));
    expect(error.code).toBe("payment_method_required");
    expect(error.status).toBe(422);
  });

  it("answers no_payment_method when there are none", async () => {
    const error = await pointsError(() => resolvePaymentMethod([], undefined));
    expect(error.code).toBe("no_payment_method");
    expect(error.status).toBe(422);
  });

  it("answers invalid_payment_method for a named method, even when there are none at all", async () => {
    const error = await pointsError(() => resolvePaymentMethod([], "pm_sim_x"));
    expect(error.code).toBe("invalid_payment_method");
  });
});

describe.each(backendsAndProviders())("payment methods on %s with the %s provider", (backend, provider) => {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
  });

  /** An organisation with its cards; `outage` makes the provider unable to list them. */
  async function newOrg(input: Omit<CreateOrganizationInput, "name" | "simulateOutage"> & { outage?: boolean } = {}) {
    const { outage, ...rest } = input;
    const created = await createOrganization(ctx, {
      name: "Payment Methods Ltd",
      ...rest,
      settings: { apiPurchasesEnabled: true, currency: "USD", ...rest.settings },
    });
    track(created.organization.id);
    if (outage) await ctx.probe.setOutage(created.organization.billingCustomerId, true);
    return created;
  }

  async function setExpiry(
    organization: { billingCustomerId: string },
    paymentMethodId: string,
    expMonth: number,
    expYear: number,
  ): Promise<void> {
    await ctx.probe.setCardExpiry(organization.billingCustomerId, paymentMethodId, expMonth, expYear);
  }

  function idOf(methods: { id: string }[], index: number): string {
    const found = methods[index];
    if (!found) throw new Error(`No payment method at index ${index}`);
    return found.id;
  }

  describe("listUsablePaymentMethods", () => {
    it("lists the default first, with labels, and leaves the expired card out", async () => {
      const { organization, paymentMethods } = await newOrg({
        cards: ["mastercard", "expired", "visa"],
        defaultCardIndex: 2,
      });
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect(methods.map((m) => m.id)).toEqual([idOf(paymentMethods, 2), idOf(paymentMethods, 0)]);
      expect(methods.map((m) => [m.label, m.isDefault])).toEqual([
        ["Visa •••• 4242", true],
        ["Mastercard •••• 4444", false],
      ]);
    });

    it("keeps a card that expires this month and drops one that expired last month", async () => {
      // The TestClock starts on 2026-11-22.
      const { organization, paymentMethods } = await newOrg({ cards: ["visa", "mastercard"] });
      await setExpiry(organization, idOf(paymentMethods, 0), 11, 2026);
      await setExpiry(organization, idOf(paymentMethods, 1), 10, 2026);
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect(methods.map((m) => m.id)).toEqual([idOf(paymentMethods, 0)]);
    });

    it("keeps a card through the last second of its expiry month and drops it at the next month", async () => {
      const { organization, paymentMethods } = await newOrg({ cards: ["visa"] });
      await setExpiry(organization, idOf(paymentMethods, 0), 12, 2026);
      const at = (iso: string): Services => ({ ...ctx, clock: new TestClock(Date.parse(iso)) });
      expect(await listUsablePaymentMethods(at("2026-12-31T23:59:59.999Z"), organization)).toHaveLength(1);
      expect(await listUsablePaymentMethods(at("2027-01-01T00:00:00.000Z"), organization)).toHaveLength(0);
    });

    it("turns a provider outage into payment_methods_unavailable (502) with a Retry-After", async () => {
      const { organization } = await newOrg({ cards: ["visa"], defaultCardIndex: 0, outage: true });
      const error = await pointsError(() => listUsablePaymentMethods(ctx, organization));
      expect(error.code).toBe("payment_methods_unavailable");
      expect(error.status).toBe(502);
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
    });

    it("turns any provider error, not only an announced outage, into payment_methods_unavailable", async () => {
      const { organization } = await newOrg({ cards: ["visa"] });
      const broken = patchProvider(ctx.provider, {
        listPaymentMethods: async () => {
          throw new TypeError("socket hang up");
        },
      });
      const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const error = await pointsError(() => listUsablePaymentMethods(withProvider(ctx, broken), organization));
        expect(error.code).toBe("payment_methods_unavailable");
        expect(error.message).not.toMatch(/socket/);
      } finally {
        quiet.mockRestore();
      }
    });

    it("answers payment_methods_unavailable when the provider hangs past its call budget", async () => {
      const { organization } = await newOrg({ cards: ["visa"] });
      const hanging = patchProvider(ctx.provider, {
        callBudgetMs: 50,
        listPaymentMethods: () => new Promise(() => {}),
      });
      const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const error = await pointsError(() => listUsablePaymentMethods(withProvider(ctx, hanging), organization));
        expect(error.code).toBe("payment_methods_unavailable");
      } finally {
        quiet.mockRestore();
      }
    });
  });

  describe("resolvePaymentMethod with an organisation's saved methods", () => {
    it("uses an explicitly named usable method over the default", async () => {
      const { organization, paymentMethods } = await newOrg({ cards: ["visa", "mastercard"], defaultCardIndex: 0 });
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect(resolvePaymentMethod(methods, idOf(paymentMethods, 1)).id).toBe(idOf(paymentMethods, 1));
    });

    it("uses the default when the request names no method", async () => {
      const { organization, paymentMethods } = await newOrg({ cards: ["visa", "mastercard"], defaultCardIndex: 1 });
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect(resolvePaymentMethod(methods, undefined).id).toBe(idOf(paymentMethods, 1));
    });

    it("uses the only usable method when there is no default", async () => {
      const { organization, paymentMethods } = await newOrg({ cards: ["expired", "visa"] });
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect(resolvePaymentMethod(methods, undefined).id).toBe(idOf(paymentMethods, 1));
    });

    it("answers payment_method_required when several are saved and none is the default", async () => {
      const { organization } = await newOrg({ cards: ["visa", "mastercard"] });
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect((await pointsError(() => resolvePaymentMethod(methods, undefined))).code).toBe("payment_method_required");
    });

    it("answers no_payment_method when the only saved card has expired", async () => {
      const { organization } = await newOrg({ cards: ["expired"], defaultCardIndex: 0 });
      const methods = await listUsablePaymentMethods(ctx, organization);
      expect((await pointsError(() => resolvePaymentMethod(methods, undefined))).code).toBe("no_payment_method");
    });

    it("answers invalid_payment_method for the organisation's own expired card", async () => {
      const { organization, paymentMethods } = await newOrg({ cards: ["visa", "expired"], defaultCardIndex: 0 });
      const methods = await listUsablePaymentMethods(ctx, organization);
      const error = await pointsError(() => resolvePaymentMethod(methods, idOf(paymentMethods, 1)));
      expect(error.code).toBe("invalid_payment_method");
      expect(error.status).toBe(422);
    });

    it("answers another organisation's method exactly as an unknown one, with no hint that it exists", async () => {
      const mine = await newOrg({ cards: ["visa"], defaultCardIndex: 0 });
      const theirs = await newOrg({ cards: ["visa"], defaultCardIndex: 0 });
      const methods = await listUsablePaymentMethods(ctx, mine.organization);
      const foreign = await pointsError(() => resolvePaymentMethod(methods, idOf(theirs.paymentMethods, 0)));
      const unknown = await pointsError(() => resolvePaymentMethod(methods, "pm_sim_doesnotexist"));
      expect(foreign.code).toBe("invalid_payment_method");
      expect(foreign.status).toBe(422);
      expect({ message: foreign.message, details: foreign.details }).toEqual({
        message: unknown.message,
        details: unknown.details,
      });
    });
  });

  describe("through purchasePoints", () => {
    async function topUpCount(organizationId: string): Promise<number> {
      return (await ctx.db.select().from(topUps).where(eq(topUps.organizationId, organizationId))).length;
    }

    it("refuses another organisation's method with invalid_payment_method and charges nothing", async () => {
      const mine = await newOrg({ cards: ["visa"], defaultCardIndex: 0 });
      const theirs = await newOrg({ cards: ["visa"], defaultCardIndex: 0 });
      const error = await pointsError(() =>
        purchasePoints(ctx, {
          organization: mine.organization,
          request: { points: 100, reference: "foreign-card", paymentSourceId: idOf(theirs.paymentMethods, 0) },
          source: "api",
        }),
      );
      expect(error.code).toBe("invalid_payment_method");
      expect(await topUpCount(mine.organization.id)).toBe(0);
      expect(await ctx.probe.countPayments(mine.organization.billingCustomerId)).toBe(0);
      expect(await ctx.probe.countPayments(theirs.organization.billingCustomerId)).toBe(0);
    });

    it("answers payment_methods_unavailable during an outage without recording or charging anything", async () => {
      const { organization } = await newOrg({ cards: ["visa"], defaultCardIndex: 0, outage: true });
      const error = await pointsError(() =>
        purchasePoints(ctx, { organization, request: { points: 100, reference: "outage" }, source: "api" }),
      );
      expect(error.code).toBe("payment_methods_unavailable");
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
      expect(await topUpCount(organization.id)).toBe(0);
      expect(await ctx.probe.countPayments(organization.billingCustomerId)).toBe(0);
    });

    it("answers currency_required before asking the provider for payment methods", async () => {
      // The outage would answer 502 if methods were resolved first; step 5 comes before step 6.
      const { organization } = await newOrg({
        cards: ["visa"],
        defaultCardIndex: 0,
        outage: true,
        settings: { currency: null },
      });
      const error = await pointsError(() =>
        purchasePoints(ctx, { organization, request: { points: 100, reference: "no-currency" }, source: "api" }),
      );
      expect(error.code).toBe("currency_required");
    });
  });
});
