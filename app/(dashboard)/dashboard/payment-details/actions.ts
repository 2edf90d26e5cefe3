"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction, redirectTo } from "@/lib/dashboard/admin-action";
import { startAddingCard } from "@/lib/points/card-setup";
import { addTestCard, removeTestCard } from "@/lib/points/test-cards";

export type AddTestCardState = ActionState<{ label: string; usable: boolean }>;

const testCardForm = z.object({ kind: z.string({ error: "Choose a test card." }).min(1, "Choose a test card.").max(40) });

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
  async (_input, { user, runtime, origin }) => redirectTo(await startAddingCard(runtime, user.organizationId, origin)),
  { origin: true },
);

export type RemoveTestCardState = ActionState;

// Anything that is not one of this organisation's cards is "not found", a malformed ID included.
const removeTestCardForm = z.object({ payment_method_id: z.string().catch("") });

/**
 * Payment details → Remove test card (the simulated provider only), then the page says so. A
 * refusal (removed already in another tab, not this organisation's, not an admin, not the
 * simulated provider) comes back to the form as a message, never as an error page.
 */
export const removeTestCardAction = adminAction(removeTestCardForm, async ({ payment_method_id }, { user, runtime }) => {
  const { wasDefault } = await removeTestCard(runtime, user.organizationId, payment_method_id);
  revalidatePath("/dashboard", "layout");
  return redirectTo(`/dashboard/payment-details?removed=${wasDefault ? "default" : "1"}`);
});
