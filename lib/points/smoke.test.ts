import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "@/lib/testing/harness";
import { createOrganization } from "./organizations";
import { purchasePoints } from "./purchase";
import { parseTopUpRequest } from "./top-up-request";

describe("smoke", () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(process.env.TEST_DATABASE_URL ? "postgres" : "pglite");
  });
  afterAll(async () => ctx?.close());

  it("buys", async () => {
    const created = await createOrganization(ctx, {
      name: "Acme",
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
    });
    const request = parseTopUpRequest({ points: 100, reference: "r1" });
    const first = await purchasePoints(ctx, { organization: created.organization, request, source: "api" });
    expect(first.outcome).toBe("paid_now");
    expect(first.pointsBalance).toBe(100);
    const again = await purchasePoints(ctx, { organization: created.organization, request, source: "api" });
    expect(again.outcome).toBe("paid");
    expect(await ctx.provider.countPayments()).toBe(1);
  });
});
