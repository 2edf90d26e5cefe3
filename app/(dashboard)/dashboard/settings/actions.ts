"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type Bundle, CURRENCIES } from "@/lib/catalog";
import type { ActionState } from "@/lib/dashboard/action-state";
import { adminAction } from "@/lib/dashboard/admin-action";
import { type SettingsChange, saveSettings } from "@/lib/points/cards/settings";
import { balanceSettingsOf, saveBalanceSettings } from "@/lib/points/recharge/balance-settings";

export type SaveSettingsState = ActionState<{ apiPurchasesEnabled: boolean; changed: SettingsChange[] }>;

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
  return { ok: true, apiPurchasesEnabled: saved.apiPurchasesEnabled, changed: saved.changed };
});

export type SaveBalanceSettingsState = ActionState<{ autoRechargeEnabled: boolean }>;

// Plain text: whether a value is a number of Points is lib/points' one check (checkBalanceSettings),
// whose messages come back keyed by these same field names.
const text = z.string().max(40).default("");
const balanceSettingsForm = z.object({
  lowBalanceThreshold: text,
  autoRechargeEnabled: z.enum(["on"]).optional(),
  autoRechargeBelow: text,
  autoRechargePoints: text,
  autoRechargeMonthlyMax: text,
});

/** Empty is none; digits (with the thousands commas the page shows) are a number; anything else fails the check. */
function pointsOrNone(value: string): number | null {
  const trimmed = value.replaceAll(",", "").trim();
  if (trimmed === "") return null;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** Settings → Save balance alerts: saving resumes a paused auto-recharge (saveBalanceSettings). */
export const saveBalanceSettingsAction = adminAction(balanceSettingsForm, async (form, { user, runtime }) => {
  const saved = await saveBalanceSettings(runtime, user.organizationId, {
    lowBalanceThreshold: pointsOrNone(form.lowBalanceThreshold),
    autoRecharge: {
      enabled: form.autoRechargeEnabled === "on",
      below: pointsOrNone(form.autoRechargeBelow),
      points: pointsOrNone(form.autoRechargePoints) as Bundle | null,
      monthlyMax: pointsOrNone(form.autoRechargeMonthlyMax),
    },
  });
  revalidatePath("/dashboard", "layout");
  return { ok: true, autoRechargeEnabled: balanceSettingsOf(saved).autoRecharge.enabled };
});
