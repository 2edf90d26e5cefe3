import { type AnnouncedAudit, announce } from "../events/events";
import type { Services } from "../services";

/*
 * `payment_methods.updated`, however a change to an organisation's saved cards is learned: from
 * this service's own pages and commands, which made it, or from the provider's webhook, which
 * reports it again (or first), and reports changes made at the provider itself. Each real change
 * is announced once, whichever report comes first.
 */

type Announcer = Pick<Services, "db" | "clock">;

/**
 * A card saved. A card is saved once: once removed, Stripe never attaches it again, so a late
 * report of its attachment (delivered after its removal) is not news either.
 */
export function announceCardAdded(
  services: Announcer,
  organizationId: string,
  paymentMethodId: string,
  audit?: AnnouncedAudit,
): Promise<boolean> {
  return announce(
    services,
    organizationId,
    "payment_methods.updated",
    { change: "added", payment_method_id: paymentMethodId },
    {
      once: {
        anyOf: [
          { change: "added", payment_method_id: paymentMethodId },
          { change: "removed", payment_method_id: paymentMethodId },
        ],
      },
      audit,
    },
  );
}

/** A card removed: once, since a removed card never comes back. */
export function announceCardRemoved(
  services: Announcer,
  organizationId: string,
  paymentMethodId: string,
  audit?: AnnouncedAudit,
): Promise<boolean> {
  const data = { change: "removed", payment_method_id: paymentMethodId };
  return announce(services, organizationId, "payment_methods.updated", data, { once: { anyOf: [data] }, audit });
}

/**
 * The default payment method is now this one (null: none). Not news when the last default
 * announced is this one already; a default that goes back to a card it was before (A, B, then A)
 * is announced each time.
 */
export function announceDefaultPaymentMethod(
  services: Announcer,
  organizationId: string,
  paymentMethodId: string | null,
  audit?: AnnouncedAudit,
): Promise<boolean> {
  return announce(
    services,
    organizationId,
    "payment_methods.updated",
    { change: "default", payment_method_id: paymentMethodId },
    { once: { latestOf: { change: "default" } }, audit },
  );
}
