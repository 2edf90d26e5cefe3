/**
 * What the billing-problem spec needs, provisioned by e2e/serve.ts before the server starts and
 * merged into e2e/.artifacts/fixtures.json under the key `billingProblem`: an organisation whose
 * customer the billing provider no longer knows (as after keys moved from test to live, or a
 * customer deleted at Stripe), made through the same domain code as the operator command.
 */
import type { Services } from "@/lib/points/services";

export interface BillingProblemFixtures {
  id: string;
  /** The customer the provider does not know. */
  customerId: string;
  admin: { email: string; password: string };
}

export async function provisionBillingProblemFixtures(services: Services): Promise<BillingProblemFixtures> {
  // Imported here rather than at the top, so specs can import this file's types without the database code.
  const { eq } = await import("drizzle-orm");
  const { organizations } = await import("@/lib/db/schema");
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { randomString } = await import("@/lib/ids");
  const created = await createOrganization(services, {
    name: "e2e Billing Problem",
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards: ["visa"],
    defaultCardIndex: 0,
  });
  const customerId = `cus_gone${randomString(12)}`;
  await services.db
    .update(organizations)
    .set({ billingCustomerId: customerId })
    .where(eq(organizations.id, created.organization.id));
  return {
    id: created.organization.id,
    customerId,
    admin: { email: created.admin.email, password: created.admin.password },
  };
}
