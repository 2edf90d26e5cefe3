/**
 * What e2e/api/spends.spec.ts needs, provisioned by e2e/serve.ts before the server starts and
 * merged into e2e/.artifacts/fixtures.json under the key `spends`: an organisation of its own with
 * a key of each scope, and a read key of the organisation whose API purchases are disabled, for the
 * order of checks.
 */

import type { Services } from "@/lib/points/services";
import type { E2eFixtures, FixtureOrganization } from "../fixture-types";

export interface SpendsFixtures {
  organizationId: string;
  purchaseKey: string;
  spendKey: string;
  readKey: string;
  /** A spend key of an organisation whose API purchases are disabled. */
  disabledSpendKey: string;
  /** An organisation with 1,000 Points, alerted below 500 and recharged with 250 below 400. */
  recharging: { organizationId: string; purchaseKey: string };
  /** The same, with a monthly cap of 250 Points: one recharge a month. */
  capped: { organizationId: string; purchaseKey: string };
}

export async function provisionSpendsFixtures(
  services: Services,
  organizations: Record<"disabled", FixtureOrganization>,
): Promise<SpendsFixtures> {
  const { createApiKey } = await import("@/lib/points/accounts/api-keys");
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const key = async (organizationId: string, scope: "spend" | "read") =>
    (await createApiKey(services.db, organizationId, services.clock, { scope })).apiKey;
  const created = await createOrganization(services, {
    name: "e2e spends",
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards: ["visa"],
    defaultCardIndex: 0,
  });
  const id = created.organization.id;
  const { saveBalanceSettings } = await import("@/lib/points/recharge/balance-settings");
  const { purchasePoints } = await import("@/lib/points/purchase");
  const rechargingOrganization = async (name: string, monthlyMax: number | null) => {
    const made = await createOrganization(services, {
      name,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: ["visa"],
      defaultCardIndex: 0,
    });
    await purchasePoints(services, {
      organization: made.organization,
      request: { points: 1000, reference: "fund" },
      source: "api",
    });
    await saveBalanceSettings(services, made.organization.id, {
      lowBalanceThreshold: 500,
      autoRecharge: { enabled: true, below: 400, points: 250, monthlyMax },
    });
    return { organizationId: made.organization.id, purchaseKey: made.apiKey.apiKey };
  };
  return {
    recharging: await rechargingOrganization("e2e auto-recharge", null),
    capped: await rechargingOrganization("e2e auto-recharge capped", 250),
    organizationId: id,
    purchaseKey: created.apiKey.apiKey,
    spendKey: await key(id, "spend"),
    readKey: await key(id, "read"),
    disabledSpendKey: await key(organizations.disabled.id, "spend"),
  };
}

/** This run's spend fixtures, or a clear failure when the server did not provision them. */
export function spendsOf(fx: E2eFixtures): SpendsFixtures {
  if (!fx.spends) throw new Error("e2e/serve.ts did not provision the spend fixtures.");
  return fx.spends as unknown as SpendsFixtures;
}
