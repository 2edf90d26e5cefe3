"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction, redirectTo } from "@/lib/dashboard/admin-action";
import { startAddingCard } from "@/lib/points/cards/card-setup";
import { removeCard } from "@/lib/points/cards/remove-card";
import { addTestCard } from "@/lib/points/cards/test-cards";

export type AddTestCardState = ActionState<{ label: string; usable: boolean }>;

const testCardForm = z.object({
  kind: z.string({ error: "Choose a test card." }).min(1, "Choose a test card.").max(40),
});

/** Payment details → Add test card (the simulated provider only). */
export const addTestCardAction = adminAction(testCardForm, async ({ kind }, { user, runtime }) => {
  const added = await addTestCard(runtime, user.organizationId, kind);
  revalidatePath("/dashboard", "layout");
  return { ok: true, label: added.label, usable: added.usable };
});

export type AddCardState = ActionState<{ label: string }>;

/** Payment details → Add a card with Stripe Checkout: off to Stripe's page, back to /added. */
export const addCardWithCheckoutAction = adminAction(
  z.object({}),
  async (_input, { user, runtime, origin }) =>
    redirectTo(await startAddingCard(runtime, user.organizationId, origin, user.userId)),
  { origin: true },
);

export type RemoveCardState = ActionState;

// Anything that is not one of this organisation's cards is "not found", a malformed ID included.
const removeCardForm = z.object({ payment_method_id: z.string().catch("") });

/**
 * Payment details → Remove card (any saved card, on either provider), then the page says so. A
 * refusal (removed already in another tab, not this organisation's, not an admin, the provider not
 * answering) comes back to the form as a message, never as an error page.
 */
export const removeCardAction = adminAction(removeCardForm, async ({ payment_method_id }, { user, runtime }) => {
  const { wasDefault } = await removeCard(runtime, user.organizationId, payment_method_id);
  revalidatePath("/dashboard", "layout");
  return redirectTo(`/dashboard/payment-details?removed=${wasDefault ? "default" : "1"}`);
});
