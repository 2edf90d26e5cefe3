import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { addUser } from "@/lib/points/accounts/members";
import { createOrganization, listProvisionedPaymentMethods } from "@/lib/points/accounts/organizations";
import type { Services } from "@/lib/points/services";
import {
  backendsAndProviders,
  createTestContext,
  type ProviderTestContext,
  patchProvider,
  withProvider,
} from "@/lib/testing/harness";
import { errorLinesSpy } from "@/lib/testing/observability";

/*
 * The server action as the browser calls it, with whatever it is sent: only what Next provides
 * around it (the session cookie, the runtime, redirect and revalidation) is stood in for.
 */
const app = vi.hoisted(() => ({
  userId: null as string | null,
  services: undefined as unknown,
  redirectedTo: null as string | null,
}));
// A session signed when the user was made (session version 0): resets and role changes would end it.
vi.mock("next-auth", () => ({
  getServerSession: async () => (app.userId ? { userId: app.userId, sessionVersion: 0 } : null),
}));
vi.mock("@/lib/server/runtime", () => ({ getRuntime: async () => app.services, isProduction: () => false }));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    app.redirectedTo = url;
    throw Object.assign(new Error("NEXT_REDIRECT"), { digest: `NEXT_REDIRECT;replace;${url};307;` });
  },
}));

const { removeCardAction } = await import("./actions");

function form(paymentMethodId: string): FormData {
  const data = new FormData();
  data.set("payment_method_id", paymentMethodId);
  return data;
}

const logged = errorLinesSpy();

describe.each(backendsAndProviders())("Remove card (the action) on %s with %s", (backend, provider) => {
  let ctx: ProviderTestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend, { provider });
  });
  afterAll(async () => {
    await ctx?.close();
  });
  afterEach(() => {
    app.userId = null;
    app.redirectedTo = null;
    logged.mockClear();
  });

  async function organisationWithCards() {
    const created = await createOrganization(ctx, {
      name: "Removal Ltd",
      cards: ["visa", "mastercard"],
      defaultCardIndex: 0,
    });
    const member = await addUser(ctx, created.organization.id, {
      email: `m-${created.organization.id.toLowerCase()}@example.com`,
      role: "member",
    });
    return { ...created, member };
  }

  const savedIds = async (organization: { billingCustomerId: string }) =>
    (await listProvisionedPaymentMethods(ctx, organization)).map((method) => method.id);

  async function act(services: Services, userId: string | null, paymentMethodId: string) {
    app.services = services;
    app.userId = userId;
    return removeCardAction(null, form(paymentMethodId));
  }

  it("removes the card and sends the admin back to the page; the same card again is a message, not a crash", async () => {
    const org = await organisationWithCards();
    const visa = org.paymentMethods[0]?.id ?? "";
    await expect(act(ctx, org.admin.userId, visa)).rejects.toThrow("NEXT_REDIRECT");
    expect(app.redirectedTo).toBe("/dashboard/payment-details?removed=default");
    expect(await savedIds(org.organization)).not.toContain(visa);

    app.redirectedTo = null;
    const again = await act(ctx, org.admin.userId, visa);
    expect(again).toEqual({
      ok: false,
      error: expect.stringMatching(/^This card is no longer saved in this organisation/),
    });
    expect(app.redirectedTo).toBeNull();
    expect(logged).not.toHaveBeenCalled();
  });

  it("answers another organisation's card, and a malformed ID, as not saved here, and removes nothing", async () => {
    const mine = await organisationWithCards();
    const theirs = await organisationWithCards();
    const before = await savedIds(theirs.organization);
    for (const id of [theirs.paymentMethods[1]?.id ?? "", "not a card", ""]) {
      const answer = await act(ctx, mine.admin.userId, id);
      expect(answer).toEqual({
        ok: false,
        error: expect.stringMatching(/^This card is no longer saved in this organisation/),
      });
    }
    expect(await savedIds(theirs.organization)).toEqual(before);
    expect(logged).not.toHaveBeenCalled();
  });

  it("refuses a member's forged call, and a call without a session, and removes nothing", async () => {
    const org = await organisationWithCards();
    const before = await savedIds(org.organization);
    const visa = org.paymentMethods[0]?.id ?? "";
    expect(await act(ctx, org.member.userId, visa)).toEqual({
      ok: false,
      error: "Only an admin of this organisation can do that.",
    });
    expect(await act(ctx, null, visa)).toEqual({ ok: false, error: "Your session has ended; sign in again." });
    expect(await savedIds(org.organization)).toEqual(before);
    expect(app.redirectedTo).toBeNull();
    expect(logged).not.toHaveBeenCalled();
  });

  it("says so in words when the provider does not answer, and removes nothing", async () => {
    const org = await organisationWithCards();
    const before = await savedIds(org.organization);
    const down = withProvider(
      ctx,
      patchProvider(ctx.provider, {
        removePaymentMethod: async () => {
          throw new Error("connect ECONNREFUSED (injected)");
        },
      }),
    );
    const answer = await act(down, org.admin.userId, org.paymentMethods[1]?.id ?? "");
    expect(answer).toEqual({
      ok: false,
      error: expect.stringMatching(/^The billing provider did not answer, so the card was not removed/),
    });
    expect(await savedIds(org.organization)).toEqual(before);
    expect(app.redirectedTo).toBeNull();
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockClear();
  });
});
