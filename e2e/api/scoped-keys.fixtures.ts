/**
 * What e2e/api/scoped-keys.spec.ts needs, provisioned by e2e/serve.ts before the server starts and
 * merged into e2e/.artifacts/fixtures.json under the key `scopedKeys`: an organisation of its own
 * with keys of each kind, made as the dashboard and the operator command make them
 * (lib/points/accounts/api-keys.ts), and read keys of the refusing organisations for the order of checks.
 */

import type { Services } from "@/lib/points/services";
import type { E2eFixtures, FixtureOrganization } from "../fixture-types";

/** The daily caps of the capped keys, in Points. */
export const CAPPED_KEY_DAILY_POINTS = 500;
export const README_CAPPED_KEY_DAILY_POINTS = 250;

export interface ScopedKeysFixtures {
  organizationId: string;
  /** The organisation's first key: purchase scope, no cap of its own. */
  purchaseKey: string;
  readKey: string;
  /** Purchase scope, capped at CAPPED_KEY_DAILY_POINTS. */
  cappedKey: string;
  cappedKeyId: string;
  /** The README's walkthrough keys, used by no other test. */
  readme: { purchaseKey: string; readKey: string; cappedKey: string };
  cards: { visa: string; declined: string };
  /** Read keys of organisations that fail an earlier check: the scope must not be what answers. */
  disabledReadKey: string;
  unavailableReadKey: string;
  /** The organisation's people, for the API keys page (e2e/dashboard/scoped-keys.spec.ts). */
  admin: { email: string; password: string };
  member: { email: string; password: string };
}

export async function provisionScopedKeysFixtures(
  services: Services,
  organizations: Record<"disabled" | "unavailable", FixtureOrganization>,
): Promise<ScopedKeysFixtures> {
  // Imported here rather than at the top, so the spec can import this file's types without the database code.
  const { createApiKey } = await import("@/lib/points/accounts/api-keys");
  const { createOrganization } = await import("@/lib/points/accounts/organizations");
  const { addUser } = await import("@/lib/points/accounts/members");
  const key = (organizationId: string, options: Parameters<typeof createApiKey>[3]) =>
    createApiKey(services.db, organizationId, services.clock, options);

  const created = await createOrganization(services, {
    name: "e2e scoped keys",
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards: ["visa", "declined"],
    defaultCardIndex: 0,
  });
  const id = created.organization.id;
  const cardId = (kind: string) => {
    const found = created.paymentMethods.find((method) => method.kind === kind);
    if (!found) throw new Error(`The ${kind} card was not provisioned.`);
    return found.id;
  };
  const capped = await key(id, { dailyPointsCap: CAPPED_KEY_DAILY_POINTS });
  const member = await addUser(services, id, {
    email: `member-${id.slice(-8).toLowerCase()}@e2e-scopes.example`,
    role: "member",
  });
  const readme = await createOrganization(services, {
    name: "e2e scoped keys README",
    settings: { currency: "USD", apiPurchasesEnabled: true },
    cards: ["visa"],
    defaultCardIndex: 0,
  });
  return {
    organizationId: id,
    purchaseKey: created.apiKey.apiKey,
    readKey: (await key(id, { scope: "read" })).apiKey,
    cappedKey: capped.apiKey,
    cappedKeyId: capped.keyId,
    readme: {
      purchaseKey: readme.apiKey.apiKey,
      readKey: (await key(readme.organization.id, { scope: "read" })).apiKey,
      cappedKey: (await key(readme.organization.id, { dailyPointsCap: README_CAPPED_KEY_DAILY_POINTS })).apiKey,
    },
    cards: { visa: cardId("visa"), declined: cardId("declined") },
    disabledReadKey: (await key(organizations.disabled.id, { scope: "read" })).apiKey,
    unavailableReadKey: (await key(organizations.unavailable.id, { scope: "read" })).apiKey,
    admin: { email: created.admin.email, password: created.admin.password },
    member: { email: member.email, password: member.password },
  };
}

/** This run's scoped-key fixtures, or a clear failure when the server did not provision them. */
export function scopedKeysOf(fx: E2eFixtures): ScopedKeysFixtures {
  if (!fx.scopedKeys) throw new Error("e2e/serve.ts did not provision the scoped-key fixtures.");
  return fx.scopedKeys as unknown as ScopedKeysFixtures;
}
