/**
 * What the account specs (auth.spec.ts, account.spec.ts) need, provisioned by e2e/serve.ts before
 * the server starts and merged into e2e/.artifacts/fixtures.json under the key `account`.
 *
 * One organisation per scenario, so no test depends on another's saved settings, keys or limits,
 * and the spec files can run in parallel. `other` exists only to prove that nothing of it shows
 * up, or can be touched, from the others.
 */
import type { Services } from "@/lib/points/services";

export interface AccountFixtureUser {
  email: string;
  password: string;
  userId: string;
}

export interface AccountFixtureOrganization {
  id: string;
  name: string;
  apiKey: string;
  keyId: string;
  admin: AccountFixtureUser;
  /** A member (look, never change); every organisation has one. */
  member: AccountFixtureUser;
  /** Saved cards in the order provisioned, with the test card behind each. */
  paymentMethods: { id: string; label: string; kind: string; isDefault: boolean }[];
}

export const ACCOUNT_SCENARIOS = [
  "signin",
  "enable",
  "copy",
  "defaults",
  "keys",
  "viewer",
  "limits",
  "members",
  "secrets",
  "balance",
  "pages",
  "phone",
  "team",
  "cards",
  "other",
  "cardRemoval",
  "allCards",
  "doubleRemoval",
  "sessions",
  "accessibility",
  "webhooks",
  "receipts",
  "password",
  "phonePassword",
  "phoneWide",
  "expiry",
] as const;

export type AccountScenario = (typeof ACCOUNT_SCENARIOS)[number];
export type AccountFixtures = Record<AccountScenario, AccountFixtureOrganization>;

export async function provisionAccountFixtures(services: Services): Promise<Record<string, unknown>> {
  // Imported here rather than at the top, so specs can import this file's types without the database code.
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { addUser } = await import("@/lib/points/accounts/members");
  const { TEST_CARDS } = await import("@/lib/billing/test-cards");
  type Input = Omit<Parameters<typeof createOrganization>[1], "name">;
  const usd = { currency: "USD", apiPurchasesEnabled: true } as const;

  const scenarios: Record<AccountScenario, Input> = {
    signin: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // Disabled until the spec enables and saves it.
    enable: { settings: { currency: "USD", apiPurchasesEnabled: false }, cards: ["visa"], defaultCardIndex: 0 },
    copy: { settings: usd, cards: ["visa", "mastercard", "expired"], defaultCardIndex: 0 },
    // No saved currency and no default card: a purchase must name both until Settings saves them.
    defaults: { settings: { apiPurchasesEnabled: true }, cards: ["visa", "mastercard"] },
    keys: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // Disabled, so a member's forced save would show as a change if the server let it through.
    viewer: { settings: { currency: "USD", apiPurchasesEnabled: false }, cards: ["visa"], defaultCardIndex: 0 },
    limits: {
      settings: {
        ...usd,
        maxPointsPerTopUp: 2500,
        maxPointsBalance: 10000,
        frequencyLimit: { count: 5, windowSeconds: 3600 },
        dailyPointsLimit: 5000,
      },
      cards: ["visa", "declined"],
      defaultCardIndex: 0,
    },
    members: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // Two API keys and two members are created in a row: the second submit must not carry the first secret.
    secrets: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // Bought through the REST API while the dashboard is open: the header must follow.
    balance: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // Not-found pages inside the dashboard.
    pages: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // The phone project walks every page at 390 px.
    phone: { settings: usd, cards: ["visa", "declined"], defaultCardIndex: 0 },
    // Roles changed, a password reset and a member removed.
    team: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // A succeeding and a declining test card, each labelled with what it does.
    cards: { settings: usd, cards: ["visa", "declined"], defaultCardIndex: 0 },
    // A test card saved twice is refused; test cards are removed, the default among them.
    cardRemoval: { settings: usd, cards: ["visa", "mastercard", "declined"], defaultCardIndex: 0 },
    // Every test card saved, as the demo organisation of `npm run dev` has them: nothing left to add.
    // Those this provider offers: a card the simulated one gained first (dispute) must not stop Stripe's run.
    allCards: {
      settings: usd,
      cards: Object.keys(TEST_CARDS).filter((kind) => services.provider.testMode?.cardKinds().includes(kind) ?? true),
      defaultCardIndex: 0,
    },
    other: { settings: usd, cards: ["visa", "mastercard"], defaultCardIndex: 0 },
    // An endpoint added, tested, rotated, disabled and deleted on the Webhooks page.
    webhooks: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // A paid purchase's receipt, on screen and as printed.
    receipts: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // One card removed from two tabs: the second tab is told so, not shown an error page.
    doubleRemoval: { settings: usd, cards: ["visa", "mastercard"], defaultCardIndex: 0 },
    // A member signed in elsewhere while an admin resets their password and changes their role.
    sessions: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // A member changes their own password (Your account) while signed in elsewhere too.
    password: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // The same on a phone, by the admin: the phone journeys keep signing in as `phone`'s admin.
    phonePassword: { settings: usd, cards: ["visa"], defaultCardIndex: 0 },
    // The widest pages on a phone: Webhooks with deliveries, the Audit log and History with their rows.
    phoneWide: { settings: usd, cards: ["visa", "declined"], defaultCardIndex: 0 },
    // Paid Points that expire a year after purchase, and a grant that expires within 60 days.
    expiry: { settings: { ...usd, paidPointsExpireAfterDays: 365 }, cards: ["visa"], defaultCardIndex: 0 },
    // Every page checked with axe and weighed for JavaScript: every limit set (meters on Limits),
    // cards of each kind (an expired one among them) and purchases the spec makes through the API.
    accessibility: {
      settings: {
        ...usd,
        maxPointsPerTopUp: 2500,
        maxPointsBalance: 100000,
        frequencyLimit: { count: 50, windowSeconds: 3600 },
        dailyPointsLimit: 50000,
      },
      cards: ["visa", "mastercard", "declined", "authentication_required", "expired"],
      defaultCardIndex: 0,
    },
  };

  const fixtures: Partial<AccountFixtures> = {};
  for (const scenario of ACCOUNT_SCENARIOS) {
    const created = await createOrganization(services, { name: `Account ${scenario}`, ...scenarios[scenario] });
    if (scenario === "expiry") {
      const { createGrant } = await import("@/lib/points/grants/grants");
      await createGrant(services, created.organization.id, {
        points: 1200,
        reason: "Trial credit",
        expiresAt: new Date(services.clock.now().getTime() + 20 * 24 * 3600 * 1000),
      });
    }
    const member = await addUser(services, created.organization.id, {
      email: `member-${created.organization.id.slice(-8).toLowerCase()}@e2e-account.example`,
      role: "member",
    });
    fixtures[scenario] = {
      id: created.organization.id,
      name: created.organization.name,
      apiKey: created.apiKey.apiKey,
      keyId: created.apiKey.keyId,
      admin: { email: created.admin.email, password: created.admin.password, userId: created.admin.userId },
      member: { email: member.email, password: member.password, userId: member.userId },
      paymentMethods: created.paymentMethods.map((method) => ({
        id: method.id,
        label: method.label,
        kind: method.kind ?? "",
        isDefault: method.isDefault,
      })),
    };
  }
  return fixtures;
}
