"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type ActionState, actionError, invalidForm } from "@/components/dashboard/account/action-state";
import { requireAdmin } from "@/lib/auth/session";
import { CURRENCIES } from "@/lib/points/catalog";
import { saveSettings } from "@/lib/points/settings";
import { getRuntime } from "@/lib/runtime";

export type SaveSettingsState = ActionState<{ apiPurchasesEnabled: boolean }>;

const settingsForm = z.object({
  apiPurchasesEnabled: z.enum(["on"]).optional(),
  currency: z.union([z.enum(CURRENCIES), z.literal("")], { error: "Choose USD, GBP, EUR or no default currency." }),
  // Absent when the provider could not list the methods: the saved default is then left alone.
  defaultPaymentMethodId: z.string().max(200).optional(),
});

/** Settings → Save: the one place an admin changes what the REST API follows. */
export async function saveSettingsAction(_state: SaveSettingsState, formData: FormData): Promise<SaveSettingsState> {
  try {
    const user = await requireAdmin();
    const parsed = settingsForm.safeParse({
      apiPurchasesEnabled: formData.get("apiPurchasesEnabled") ?? undefined,
      currency: formData.get("currency") ?? "",
      defaultPaymentMethodId: formData.get("defaultPaymentMethodId") ?? undefined,
    });
    if (!parsed.success) return invalidForm(parsed.error);
    const { apiPurchasesEnabled, currency, defaultPaymentMethodId } = parsed.data;
    const saved = await saveSettings(await getRuntime(), user.organizationId, {
      apiPurchasesEnabled: apiPurchasesEnabled === "on",
      currency: currency === "" ? null : currency,
      defaultPaymentMethodId: defaultPaymentMethodId === undefined ? undefined : defaultPaymentMethodId || null,
    });
    revalidatePath("/dashboard", "layout");
    return { ok: true, apiPurchasesEnabled: saved.apiPurchasesEnabled };
  } catch (error) {
    return actionError(error);
  }
}
