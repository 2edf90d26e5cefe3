/**
 * What e2e/dashboard/auto-recharge.spec.ts needs, provisioned by e2e/serve.ts before the server
 * starts and merged into e2e/.artifacts/fixtures.json under the key `autoRecharge`: organisations
 * of its own with Points bought, so their spends and recharges never move another spec's balance.
 * Each is made through the same domain code as the dashboard and the operator command.
 */
import type { Services } from "@/lib/points/services";

export interface AutoRechargeFixtureOrganization {
  id: string;
  /** The organisation's first key: purchase scope, which may spend too. */
  purchaseKey: string;
  admin: { email: string; password: string };
  member: { email: string; password: string };
}

export interface AutoRechargeFixtures {
  /** Visa as default card, nothing saved about the balance yet: the admin turns auto-recharge on in Settings. */
  journey: AutoRechargeFixtureOrganization;
  /** A low-balance threshold of LOW_THRESHOLD, auto-recharge off. */
  low: AutoRechargeFixtureOrganization;
  /** A declined card as default and auto-recharge already on: below DECLINED_BELOW, buy 500. */
  declined: AutoRechargeFixtureOrganization;
}

/** Points each organisation starts with, bought on a visa card. */
export const AUTO_RECHARGE_FIXTURE_POINTS = 1000;
export const LOW_THRESHOLD = 500;
export const DECLINED_BELOW = 500;

export async function provisionAutoRechargeFixtures(services: Services): Promise<AutoRechargeFixtures> {
  // Imported here rather than at the top, so the spec can import this file's types without the database code.
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { addUser } = await import("@/lib/points/accounts/members");
  const { purchasePoints } = await import("@/lib/points/purchase");
  const { saveBalanceSettings, NO_BALANCE_SETTINGS } = await import("@/lib/points/recharge/balance-settings");

  async function funded(name: string, cards: string[]): Promise<AutoRechargeFixtureOrganization> {
    const created = await createOrganization(services, {
      name: `e2e Auto-recharge ${name}`,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards,
      defaultCardIndex: 0,
    });
    const visa = created.paymentMethods.find((method) => method.kind === "visa");
    const bought = await purchasePoints(services, {
      organization: created.organization,
      request: { points: AUTO_RECHARGE_FIXTURE_POINTS, reference: `fund-${name}`, paymentSourceId: visa?.id },
      source: "dashboard",
    });
    if (bought.topUp.status !== "paid") throw new Error(`The ${name} fixture's purchase ended ${bought.topUp.status}.`);
    const member = await addUser(services, created.organization.id, {
      email: `member-${created.organization.id.slice(-8).toLowerCase()}@e2e-auto-recharge.example`,
      role: "member",
    });
    return {
      id: created.organization.id,
      purchaseKey: created.apiKey.apiKey,
      admin: { email: created.admin.email, password: created.admin.password },
      member: { email: member.email, password: member.password },
    };
  }

  const journey = await funded("journey", ["visa"]);
  const low = await funded("low", ["visa"]);
  await saveBalanceSettings(services, low.id, { ...NO_BALANCE_SETTINGS, lowBalanceThreshold: LOW_THRESHOLD });
  const declined = await funded("declined", ["declined", "visa"]);
  await saveBalanceSettings(services, declined.id, {
    lowBalanceThreshold: null,
    autoRecharge: { enabled: true, below: DECLINED_BELOW, points: 500, monthlyMax: null },
  });
  return { journey, low, declined };
}
