/**
 * What e2e/dashboard/spends.spec.ts needs, provisioned by e2e/serve.ts before the server starts and
 * merged into e2e/.artifacts/fixtures.json under the key `dashboardSpends`: an organisation of its own with
 * Points bought, so its spends never move another spec's balance, made through the same domain
 * code as the dashboard and the operator command.
 */
import type { Services } from "@/lib/points/services";

export interface DashboardSpendsFixtures {
  id: string;
  /** The organisation's first key: purchase scope, which may spend too. */
  purchaseKey: string;
  /** The reference of the purchase that gave it its Points. */
  topUpReference: string;
  admin: { email: string; password: string };
}

export const SPENDS_FIXTURE_POINTS = 1000;

export async function provisionDashboardSpendsFixtures(services: Services): Promise<DashboardSpendsFixtures> {
  // Imported here rather than at the top, so the spec can import this file's types without the database code.
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { purchasePoints } = await import("@/lib/points/purchase");
  const created = await createOrganization(services, {
    name: "e2e Spends",
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards: ["visa"],
    defaultCardIndex: 0,
  });
  const topUpReference = "spends-fixture-top-up";
  const bought = await purchasePoints(services, {
    organization: created.organization,
    request: { points: SPENDS_FIXTURE_POINTS, currency: "USD", reference: topUpReference },
    source: "dashboard",
  });
  if (bought.topUp.status !== "paid") throw new Error(`The spends fixture's purchase ended ${bought.topUp.status}.`);
  return {
    id: created.organization.id,
    purchaseKey: created.apiKey.apiKey,
    topUpReference,
    admin: { email: created.admin.email, password: created.admin.password },
  };
}
