/**
 * What the Buy Points and History specs need, provisioned by e2e/serve.ts before the server
 * starts and merged into e2e/.artifacts/fixtures.json under the key `buy`.
 *
 * Two organisations, so the two spec files can run in parallel without sharing a balance or a
 * history: `buyer` for purchases through the dashboard, `ledger` for the history, the filters and
 * the CSV export (with API purchases mixed in).
 */
import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import type { Services } from "@/lib/points/services";

export interface BuyFixtureUser {
  email: string;
  password: string;
}

export interface BuyFixtureOrganization {
  id: string;
  name: string;
  apiKey: string;
  admin: BuyFixtureUser;
  member: BuyFixtureUser;
  /** Saved card IDs by test card kind; `visa` is the default. */
  cards: { visa: string; declined: string; authentication_required: string; processing: string };
}

export interface BuyFixtures {
  buyer: BuyFixtureOrganization;
  ledger: BuyFixtureOrganization;
  /** Has one purchase that has been unresolved for two hours (reference `stuck-at-the-bank`). */
  stuck: BuyFixtureOrganization;
  /** No saved card yet: its first card, added in the dashboard, becomes the default. */
  cardless: { id: string; admin: BuyFixtureUser };
  /** Buys with its cards, then removes them (remove-card specs): History keeps each card's label. */
  cardRemover: BuyFixtureOrganization;
}

const CARDS = ["visa", "declined", "authentication_required", "processing"] as const;

export async function provisionBuyFixtures(services: Services): Promise<Record<string, unknown>> {
  // Imported here rather than at the top, so specs can import this file's types without the database code.
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { addUser } = await import("@/lib/points/accounts/members");

  async function provision(name: string): Promise<BuyFixtureOrganization> {
    const created = await createOrganization(services, {
      name,
      settings: { currency: "USD", apiPurchasesEnabled: true },
      cards: [...CARDS],
      defaultCardIndex: 0,
    });
    const member = await addUser(services, created.organization.id, {
      email: `member-${created.organization.id.slice(-8).toLowerCase()}@e2e-buy.example`,
      role: "member",
    });
    const cardId = (kind: (typeof CARDS)[number]) => {
      const found = created.paymentMethods.find((method) => method.kind === kind);
      if (!found) throw new Error(`The ${kind} card was not provisioned for ${name}.`);
      return found.id;
    };
    return {
      id: created.organization.id,
      name: created.organization.name,
      apiKey: created.apiKey.apiKey,
      admin: { email: created.admin.email, password: created.admin.password },
      member: { email: member.email, password: member.password },
      cards: {
        visa: cardId("visa"),
        declined: cardId("declined"),
        authentication_required: cardId("authentication_required"),
        processing: cardId("processing"),
      },
    };
  }

  const fixtures: BuyFixtures = {
    buyer: await provision("e2e Buyer Co"),
    ledger: await provision("e2e Ledger Ltd"),
    stuck: await provision("e2e Stuck Payments"),
    cardRemover: await provision("e2e Card Remover"),
    cardless: await (async () => {
      const bare = await createOrganization(services, {
        name: "e2e Cardless",
        settings: { currency: "USD", apiPurchasesEnabled: true },
      });
      return { id: bare.organization.id, admin: { email: bare.admin.email, password: bare.admin.password } };
    })(),
  };
  await insertStuckPurchase(services, fixtures.stuck);
  return { ...fixtures };
}

/**
 * A purchase sent two hours ago whose outcome the provider has not told us, as after a long
 * outage. Its next attempt is a day away, so the server's reconciler leaves it as it is.
 */
async function insertStuckPurchase(services: Services, organization: BuyFixtureOrganization): Promise<void> {
  const { topUps, organizations } = await import("@/lib/db/schema");
  const { eq } = await import("drizzle-orm");
  const { newId } = await import("@/lib/ids");
  const [org] = await services.db.select().from(organizations).where(eq(organizations.id, organization.id));
  if (!org) throw new Error("The stuck organisation vanished.");
  const id = newId("topUp");
  const sent = new Date(Date.now() - 2 * 60 * 60 * 1000);
  await services.db.insert(topUps).values({
    id,
    organizationId: org.id,
    reference: "stuck-at-the-bank",
    points: 250,
    currency: "USD",
    amount: 2400,
    paymentSourceId: organization.cards.visa,
    billingCustomerId: org.billingCustomerId,
    source: "api",
    status: "processing",
    providerIdempotencyKey: `topup_${id}`,
    chargeAttemptedAt: sent,
    attempts: 6,
    nextAttemptAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
    createdAt: sent,
    updatedAt: sent,
  });
}

/* Helpers for the specs. They only read the fixtures file and drive the browser. */

const FIXTURES_FILE = path.join(process.cwd(), "e2e", ".artifacts", "fixtures.json");
export const SCREENSHOTS = path.join(process.cwd(), "e2e", ".artifacts", "screenshots");

/** The `buy` fixtures e2e/serve.ts wrote for this run; read lazily, once the server is up. */
export function readBuyFixtures(): BuyFixtures {
  if (!fs.existsSync(FIXTURES_FILE)) {
    throw new Error(`${FIXTURES_FILE} is missing: the tests must run under the webServer of playwright.config.ts.`);
  }
  const all = JSON.parse(fs.readFileSync(FIXTURES_FILE, "utf8")) as { buy?: BuyFixtures };
  if (!all.buy) throw new Error(`${FIXTURES_FILE} has no "buy" key: e2e/serve.ts must call provisionBuyFixtures.`);
  return all.buy;
}

/** Signs in through the real form, as a person would. */
export async function signIn(page: Page, user: BuyFixtureUser): Promise<void> {
  await page.goto("/signin");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard$/);
}

/** The Points balance in the header every dashboard page shows. */
export async function headerBalance(page: Page): Promise<number> {
  const text = await page.getByTestId("points-balance").textContent();
  return Number((text ?? "").replace(/[^0-9]/g, ""));
}
