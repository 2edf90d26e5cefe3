import { eq, isNull, ne, or, type SQL } from "drizzle-orm";
import type { BillingProvider } from "@/lib/billing/provider";
import { type TopUp, topUps } from "@/lib/db/schema";
import { log } from "@/lib/observability/log";
import { PointsError } from "../errors";

/*
 * A purchase is asked about, settled, refunded and reconciled only through the billing provider
 * that charged it (top_ups.provider, recorded with the purchase). Every path that would ask a
 * provider about an existing purchase checks here first, before it records anything.
 */

export type ProviderName = BillingProvider["name"];

const PROVIDERS: Record<ProviderName, { displayName: string; howToUse: string }> = {
  stripe: { displayName: "Stripe", howToUse: "set STRIPE_SECRET_KEY (and STRIPE_API_URL for a test server)" },
  simulated: { displayName: "the simulated billing provider", howToUse: "unset STRIPE_SECRET_KEY" },
};

/** What the operator was doing, for the message: "… to refund it." */
export type ChargedByAction = "refund" | "settle" | "complete" | "dispute";

const ACTION_WORDS: Record<ChargedByAction, string> = {
  refund: "refund it",
  settle: "settle it",
  complete: "complete its payment",
  dispute: "settle its dispute",
};

/** How people know a provider, in messages: "Stripe", "the simulated billing provider". */
export function providerDisplayNameOf(name: ProviderName): string {
  return PROVIDERS[name].displayName;
}

/** The provider that charged the purchase, or null when that is not recorded (any provider may act on it). */
export function chargedBy(topUp: Pick<TopUp, "provider">): ProviderName | null {
  return topUp.provider === "stripe" || topUp.provider === "simulated" ? topUp.provider : null;
}

/** True when another provider than this one charged the purchase: this one must not be asked about it. */
export function chargedElsewhere(provider: Pick<BillingProvider, "name">, topUp: Pick<TopUp, "provider">): boolean {
  const by = chargedBy(topUp);
  return by !== null && by !== provider.name;
}

/** "Top-up tu_… was charged through Stripe; set STRIPE_SECRET_KEY (…) to refund it." */
export function chargedElsewhereMessage(topUp: Pick<TopUp, "id" | "provider">, action: ChargedByAction): string {
  const by = PROVIDERS[chargedBy(topUp) ?? "simulated"];
  return `Top-up ${topUp.id} was charged through ${by.displayName}; ${by.howToUse} to ${ACTION_WORDS[action]}.`;
}

/**
 * Refuses, with billing_provider_mismatch, to act on a purchase another provider charged. Called
 * before anything is recorded and before the provider is asked.
 */
export function assertChargedHere(
  provider: Pick<BillingProvider, "name">,
  topUp: Pick<TopUp, "id" | "provider">,
  action: ChargedByAction,
): void {
  if (!chargedElsewhere(provider, topUp)) return;
  throw new PointsError("billing_provider_mismatch", chargedElsewhereMessage(topUp, action), {
    details: { top_up_id: topUp.id, charged_by: chargedBy(topUp), provider: provider.name },
  });
}

/**
 * Logs, for the operator, that a purchase was left as it is because another provider charged it
 * (an API retry, the reconciler): the caller answers from what is stored and asks nobody.
 */
export function logChargedElsewhere(
  provider: Pick<BillingProvider, "name">,
  topUp: Pick<TopUp, "id" | "provider" | "organizationId" | "status">,
  where: string,
): void {
  log().warn(
    {
      event: "charged_elsewhere",
      top_up_id: topUp.id,
      organization_id: topUp.organizationId,
      status: topUp.status,
      charged_by: chargedBy(topUp),
      provider: provider.name,
    },
    `${where}: ${chargedElsewhereMessage(topUp, "settle")} It was left ${topUp.status}.`,
  );
}

/** Purchases this provider may act on, as a condition on top_ups. */
export function chargedHereSql(provider: Pick<BillingProvider, "name">): SQL | undefined {
  return or(isNull(topUps.provider), eq(topUps.provider, provider.name));
}

/** Purchases another provider charged, as a condition on top_ups. */
export function chargedElsewhereSql(provider: Pick<BillingProvider, "name">): SQL {
  return ne(topUps.provider, provider.name);
}
