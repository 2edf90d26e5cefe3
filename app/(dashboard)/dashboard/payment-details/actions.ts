"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { type ActionState, actionError, invalidForm } from "@/components/dashboard/account/action-state";
import { requireAdmin } from "@/lib/auth/session";
import { addTestCard, removeTestCard, startAddingCard } from "@/lib/points/payment-details";
import { getRuntime } from "@/lib/runtime";

export type AddTestCardState = ActionState<{ label: string; usable: boolean }>;

const testCardForm = z.object({ kind: z.string({ error: "Choose a test card." }).min(1, "Choose a test card.").max(40) });

/** Payment details → Add test card (the simulated provider only). */
export async function addTestCardAction(_state: AddTestCardState, formData: FormData): Promise<AddTestCardState> {
  try {
    const user = await requireAdmin();
    const parsed = testCardForm.safeParse({ kind: formData.get("kind") });
    if (!parsed.success) return invalidForm(parsed.error);
    const added = await addTestCard(await getRuntime(), user.organizationId, parsed.data.kind);
    revalidatePath("/dashboard", "layout");
    return { ok: true, label: added.label, usable: added.usable };
  } catch (error) {
    return actionError(error);
  }
}

export type AddCardState = ActionState<{ label: string }>;

/** Payment details → Add a card with Stripe Checkout: off to Stripe's page, back to /added. */
export async function addCardWithCheckoutAction(_state: AddCardState, _formData: FormData): Promise<AddCardState> {
  let url: string;
  try {
    const user = await requireAdmin();
    // Next checks a server action's Origin against its Host, so the origin names this dashboard.
    const origin = (await headers()).get("origin") ?? "";
    if (!/^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin)) return { ok: false, error: "Open this page from the dashboard's own address." };
    url = await startAddingCard(await getRuntime(), user.organizationId, origin);
  } catch (error) {
    return actionError(error);
  }
  redirect(url);
}

export type RemoveTestCardState = ActionState;

/**
 * Payment details → Remove test card (the simulated provider only), then the page says so. A
 * refusal (removed already in another tab, not this organisation's, not an admin, not the
 * simulated provider) comes back to the form as a message, never as an error page.
 */
export async function removeTestCardAction(_state: RemoveTestCardState, formData: FormData): Promise<RemoveTestCardState> {
  let wasDefault: boolean;
  try {
    const user = await requireAdmin();
    const id = formData.get("payment_method_id");
    // Anything that is not one of this organisation's cards is "not found", a malformed ID included.
    ({ wasDefault } = await removeTestCard(await getRuntime(), user.organizationId, typeof id === "string" ? id : ""));
    revalidatePath("/dashboard", "layout");
  } catch (error) {
    return actionError(error);
  }
  redirect(`/dashboard/payment-details?removed=${wasDefault ? "default" : "1"}`);
}
