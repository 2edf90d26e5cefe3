"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { CURRENCIES } from "@/lib/catalog";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction } from "@/lib/dashboard/admin-action";
import { saveSettings } from "@/lib/points/settings";

export type SaveSettingsState = ActionState<{ apiPurchasesEnabled: boolean }>;

const settingsForm = z.object({
  apiPurchasesEnabled: z.enum(["on"]).optional(),
  currency: z
    .union([z.enum(CURRENCIES), z.literal("")], { error: "Choose USD, GBP, EUR or no default currency." })
    .default(""),
  // Absent when the provider could not list the methods: the saved default is then left alone.
  defaultPaymentMethodId: z.string().max(200).optional(),
});

/** Settings → Save: the one place an admin changes what the REST API follows. */
export const saveSettingsAction = adminAction(settingsForm, async (form, { user, runtime }) => {
  const saved = await saveSettings(runtime, user.organizationId, {
    apiPurchasesEnabled: form.apiPurchasesEnabled === "on",
    currency: form.currency === "" ? null : form.currency,
    defaultPaymentMethodId: form.defaultPaymentMethodId === undefined ? undefined : form.defaultPaymentMethodId || null,
  });
  revalidatePath("/dashboard", "layout");
  return { ok: true, apiPurchasesEnabled: saved.apiPurchasesEnabled };
});
