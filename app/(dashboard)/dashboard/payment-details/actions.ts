"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type ActionState, actionError, invalidForm } from "@/components/dashboard/account/action-state";
import { requireAdmin } from "@/lib/auth/session";
import { addTestCard } from "@/lib/points/payment-details";
import { getRuntime } from "@/lib/runtime";

export type AddTestCardState = ActionState<{ label: string }>;

const testCardForm = z.object({ kind: z.string({ error: "Choose a test card." }).min(1, "Choose a test card.").max(40) });

/** Payment details → Add test card (the simulated provider only). */
export async function addTestCardAction(_state: AddTestCardState, formData: FormData): Promise<AddTestCardState> {
  try {
    const user = await requireAdmin();
    const parsed = testCardForm.safeParse({ kind: formData.get("kind") });
    if (!parsed.success) return invalidForm(parsed.error);
    const added = await addTestCard(await getRuntime(), user.organizationId, parsed.data.kind);
    revalidatePath("/dashboard", "layout");
    return { ok: true, label: added.label };
  } catch (error) {
    return actionError(error);
  }
}
