/**
 * What the after-payment spec needs, provisioned by e2e/serve.ts before the server starts and
 * merged into e2e/.artifacts/fixtures.json under the key `afterPayment`: one organisation with a
 * purchase whose cardholder disputed it (its Points held) and one an operator refunded in part,
 * made through the same domain code as the API and the operator command.
 */
import type { Services } from "@/lib/points/services";

export interface AfterPaymentFixtureUser {
  email: string;
  password: string;
}

export interface AfterPaymentPurchase {
  topUpId: string;
  reference: string;
  points: number;
}

export interface AfterPaymentFixtures {
  id: string;
  name: string;
  admin: AfterPaymentFixtureUser;
  member: AfterPaymentFixtureUser;
  /** The organisation's API key, for replaying its purchases through the API. */
  apiKey: string;
  /** 7,500 Points bought with the `dispute` card; the cardholder disputed the charge. */
  disputed: AfterPaymentPurchase & { paymentSourceId: string };
  /**
   * 1,000 Points bought with the visa, then 250 of them refunded by an operator (reason "Unused
   * seats"); an operator's further refund of 100 was refused by the provider (REFUSED_REFUND_MESSAGE).
   */
  refunded: AfterPaymentPurchase & { paymentSourceId: string; refundedPoints: number; refundedAmount: number };
  /** 100 Points bought with the visa; nothing after. */
  untouched: AfterPaymentPurchase;
}

export const REFUND_REASON = "Unused seats";
/** The provider's own words refusing the fixture's second refund: the operator's, never shown to admins. */
export const REFUSED_REFUND_MESSAGE = "No such charge: 'ch_e2e_refused'";
export const REFUSED_REFUND_REASON = "Refused attempt";

export async function provisionAfterPaymentFixtures(services: Services): Promise<AfterPaymentFixtures> {
  // Imported here rather than at the top, so specs can import this file's types without the database code.
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { addUser } = await import("@/lib/points/accounts/members");
  const { purchasePoints } = await import("@/lib/points/purchase");
  const { deliverPendingEvents } = await import("@/lib/points/intake/provider-events");
  const { refundTopUp } = await import("@/lib/points/after-payment/refunds");
  const { patchProvider, withProvider } = await import("@/lib/testing/harness");

  const created = await createOrganization(services, {
    name: "e2e After Payment",
    settings: { currency: "EUR", apiPurchasesEnabled: true },
    cards: ["dispute", "visa"],
    defaultCardIndex: 1,
  });
  const organization = created.organization;
  const member = await addUser(services, organization.id, {
    email: `member-${organization.id.slice(-8).toLowerCase()}@e2e-after.example`,
    role: "member",
  });
  const card = (kind: string) => {
    const found = created.paymentMethods.find((method) => method.kind === kind);
    if (!found) throw new Error(`The ${kind} card was not provisioned for ${organization.name}.`);
    return found.id;
  };
  const buy = async (reference: string, kind: string, points: 100 | 1000 | 7500) => {
    const result = await purchasePoints(services, {
      organization,
      request: { points, currency: "EUR", paymentSourceId: card(kind), reference },
      source: "dashboard",
    });
    if (result.topUp.status !== "paid") throw new Error(`${reference} was not paid (${result.topUp.status}).`);
    return { topUpId: result.topUp.id, reference, points, paymentSourceId: card(kind) };
  };

  const disputed = await buy("disputed-order", "dispute", 7500);
  // The simulated provider queues the dispute as Stripe would send its webhook: deliver it now, so
  // the Points are held before the server starts. Stripe's webhooks reach the server once it is up.
  await deliverPendingEvents(services);
  const bought = await buy("refunded-order", "visa", 1000);
  const result = await refundTopUp(services, { topUpId: bought.topUpId, points: 250, reason: REFUND_REASON });
  if (result.outcome !== "succeeded") throw new Error(`The fixture refund ended ${result.outcome}.`);
  const refunded = { ...bought, refundedPoints: result.refund.points, refundedAmount: result.refund.amount };
  // An operator's attempt the provider refused: it moved no money, and stays the operator's business.
  const refusing = withProvider(
    services,
    patchProvider(services.provider, {
      refund: async () => ({ refused: true as const, code: "resource_missing", message: REFUSED_REFUND_MESSAGE }),
    }),
  );
  const refused = await refundTopUp(refusing, {
    topUpId: bought.topUpId,
    points: 100,
    reason: REFUSED_REFUND_REASON,
    key: "refused",
  });
  if (refused.outcome !== "failed") throw new Error(`The fixture's refused refund ended ${refused.outcome}.`);
  const untouched = await buy("untouched-order", "visa", 100);
  return {
    id: organization.id,
    name: organization.name,
    apiKey: created.apiKey.apiKey,
    admin: { email: created.admin.email, password: created.admin.password },
    member: { email: member.email, password: member.password },
    disputed,
    refunded,
    untouched,
  };
}
