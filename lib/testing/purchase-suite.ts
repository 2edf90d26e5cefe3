import { eq } from "drizzle-orm";
import { pointsLedger } from "@/lib/db/schema";
import { type CreateOrganizationInput, createOrganization, getOrganization } from "@/lib/points/accounts/organizations";
import type { TopUpRequest } from "@/lib/points/api/top-up-request";
import { type PurchaseResult, purchasePoints } from "@/lib/points/purchase";
import type { Services } from "@/lib/points/services";
import { type Backend, expectPointsError, type ProviderTestContext } from "@/lib/testing/harness";
import { serviceSuite } from "@/lib/testing/invariants";
import type { ProviderName } from "@/lib/testing/provider-probe";

/**
 * The setup the purchasePoints suites share (purchase.test.ts, purchase-outcomes.test.ts): the
 * service suite on one backend and provider, and the helpers that make and buy for organisations.
 */
export function purchaseSuite(backend: Backend, provider: ProviderName, onContext: (ctx: ProviderTestContext) => void) {
  let ctx: ProviderTestContext;
  const track = serviceSuite(backend, provider, (made) => {
    ctx = made;
    onContext(made);
  });

  async function newOrg(input: Omit<CreateOrganizationInput, "name"> = {}) {
    const created = await createOrganization(ctx, {
      name: "Purchase Co",
      cards: ["visa"],
      defaultCardIndex: 0,
      ...input,
      settings: { apiPurchasesEnabled: true, currency: "USD", ...input.settings },
    });
    track(created.organization.id);
    return created;
  }

  function cardId(created: { paymentMethods: { id: string }[] }, index: number): string {
    const found = created.paymentMethods[index];
    if (!found) throw new Error(`No card at index ${index}`);
    return found.id;
  }

  function buy(
    organizationId: string,
    request: TopUpRequest,
    options: { source?: "api" | "dashboard"; services?: Services } = {},
  ): Promise<PurchaseResult> {
    return (async () => {
      // The organisation is read fresh, as the REST layer does on every request.
      const organization = await getOrganization(ctx.db, organizationId);
      if (!organization) throw new Error(`No organisation ${organizationId}`);
      return purchasePoints(options.services ?? ctx, { organization, request, source: options.source ?? "api" });
    })();
  }

  const pointsError = expectPointsError;

  async function ledgerRows(organizationId: string) {
    return ctx.db.select().from(pointsLedger).where(eq(pointsLedger.organizationId, organizationId));
  }

  async function paymentsOf(customerId: string): Promise<number> {
    return ctx.probe.countPayments(customerId);
  }

  /** Charge requests that reached the provider for this customer: a replay must send none. */
  function chargesSent(customerId: string): number {
    return ctx.probe.chargeRequests(customerId).length;
  }

  return { newOrg, cardId, buy, pointsError, ledgerRows, paymentsOf, chargesSent };
}
