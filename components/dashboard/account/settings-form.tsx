"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Select } from "@/components/ui/field";
import type { ActionState } from "@/lib/dashboard/action-state";
import type { SettingsChange } from "@/lib/points/cards/settings";
import { useFormAction } from "./use-form-action";
import { useLeaveGuard } from "./use-leave-guard";

export interface SettingsFormValues {
  apiPurchasesEnabled: boolean;
  currency: string;
  defaultPaymentMethodId: string;
}

type SaveState = ActionState<{ apiPurchasesEnabled: boolean; changed: SettingsChange[] }>;

/**
 * The Settings form. It is controlled so that it can say when what is on screen differs from
 * what is saved: the REST API follows the saved state only.
 */
export function SettingsForm({
  saved,
  methods,
  canEdit,
  action,
}: {
  saved: SettingsFormValues;
  /** Usable saved payment methods; null when the provider cannot list them right now. */
  methods: { id: string; label: string }[] | null;
  canEdit: boolean;
  action: (state: SaveState, data: FormData) => Promise<SaveState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const [enabled, setEnabled] = useState(saved.apiPurchasesEnabled);
  const [currency, setCurrency] = useState(saved.currency);
  const [methodId, setMethodId] = useState(saved.defaultPaymentMethodId);
  const dirty =
    enabled !== saved.apiPurchasesEnabled ||
    currency !== saved.currency ||
    (methods !== null && methodId !== saved.defaultPaymentMethodId);
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  useLeaveGuard(dirty && !pending, "Your Settings changes are not saved. Leave this page without saving them?");

  return (
    <form onSubmit={onSubmit} className="space-y-6" aria-describedby={canEdit ? undefined : "settings-readonly"}>
      {state?.ok && !dirty && (
        <Alert tone="success" title="Settings saved">
          {savedMessage(state, saved, methods)}
        </Alert>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}

      <fieldset disabled={!canEdit || pending} className="space-y-6 disabled:opacity-75">
        <legend className="sr-only">Organisation settings</legend>
        <label className="flex cursor-pointer items-start justify-between gap-6 rounded-lg border border-slate-200 p-4 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-600">
          <span>
            <span className="block text-sm font-medium text-slate-900">API Point purchases</span>
            <span className="mt-1 block text-sm text-slate-600">
              Let your API keys use the Points API: buy Points with{" "}
              <code className="font-mono text-xs">POST /v3/points/top-ups</code>, spend them, and read the balance,
              purchases, payment methods and events. When off, every API request with your keys is refused with{" "}
              <code className="font-mono text-xs">api_purchases_disabled</code>; the dashboard works as before.
            </span>
          </span>
          <input
            type="checkbox"
            role="switch"
            aria-checked={enabled}
            name="apiPurchasesEnabled"
            checked={enabled}
            onChange={(event) => setEnabled(event.target.checked)}
            className="peer sr-only"
          />
          <span
            aria-hidden="true"
            className="relative mt-0.5 inline-flex h-6 w-11 shrink-0 rounded-full bg-slate-300 transition-colors after:absolute after:left-0.5 after:top-0.5 after:h-5 after:w-5 after:rounded-full after:bg-white after:shadow after:transition-transform after:content-[''] peer-checked:bg-indigo-600 peer-checked:after:translate-x-5"
          />
        </label>

        <div className="grid gap-6 sm:grid-cols-2">
          <Field
            id="currency"
            label="Default currency"
            hint="Used when a purchase request does not name a currency."
            error={fields.currency}
          >
            <Select
              id="currency"
              name="currency"
              value={currency}
              onChange={(event) => setCurrency(event.target.value)}
              aria-invalid={fields.currency ? true : undefined}
              aria-describedby={fields.currency ? "currency-error" : "currency-hint"}
            >
              <option value="">No default: every request names one</option>
              <option value="USD">USD: US dollar</option>
              <option value="GBP">GBP: Pound sterling</option>
              <option value="EUR">EUR: Euro</option>
            </Select>
          </Field>

          {methods === null ? (
            <div>
              <p className="text-sm font-medium text-slate-900">Default payment method</p>
              <p className="mt-1.5 text-sm text-amber-800">
                The billing provider cannot list payment methods right now, so the default stays as it is. Try again in
                a moment.
              </p>
            </div>
          ) : (
            <Field
              id="defaultPaymentMethodId"
              label="Default payment method"
              hint={
                methods.length === 0
                  ? "No usable saved payment method yet: add one in Payment details."
                  : "Charged when a purchase request does not name a payment_source_id."
              }
              error={fields.defaultPaymentMethodId}
            >
              <Select
                id="defaultPaymentMethodId"
                name="defaultPaymentMethodId"
                value={methodId}
                onChange={(event) => setMethodId(event.target.value)}
                aria-invalid={fields.defaultPaymentMethodId ? true : undefined}
                aria-describedby={
                  fields.defaultPaymentMethodId ? "defaultPaymentMethodId-error" : "defaultPaymentMethodId-hint"
                }
              >
                <option value="">No default</option>
                {methods.map((method) => (
                  <option key={method.id} value={method.id}>
                    {method.label}
                  </option>
                ))}
              </Select>
            </Field>
          )}
        </div>
      </fieldset>

      <div className="flex flex-wrap items-center gap-3 border-t border-slate-100 pt-4">
        <Button type="submit" disabled={!canEdit || pending}>
          {pending ? "Saving…" : "Save settings"}
        </Button>
        {canEdit ? (
          <p className="text-sm text-slate-600" role="status">
            {dirty ? (
              <span className="font-medium text-amber-800">
                Unsaved changes: the API still follows the saved settings.
              </span>
            ) : (
              "No unsaved changes."
            )}
          </p>
        ) : (
          <p id="settings-readonly" className="text-sm text-slate-600">
            Only an admin can change settings.
          </p>
        )}
      </div>
    </form>
  );
}

/** What the save changed, in words: the API switch first, as the API follows it at once. */
function savedMessage(
  state: { apiPurchasesEnabled: boolean; changed: SettingsChange[] },
  saved: SettingsFormValues,
  methods: { id: string; label: string }[] | null,
): string {
  const { changed } = state;
  if (changed.includes("apiPurchasesEnabled")) {
    return `API Point purchases are now ${state.apiPurchasesEnabled ? "enabled" : "disabled"}; the REST API follows these settings from this moment.`;
  }
  const parts: string[] = [];
  if (changed.includes("currency")) {
    parts.push(saved.currency ? `the default currency is now ${saved.currency}` : "there is no default currency now");
  }
  if (changed.includes("defaultPaymentMethod")) {
    const method = methods?.find((candidate) => candidate.id === saved.defaultPaymentMethodId);
    parts.push(method ? `the default payment method is now ${method.label}` : "there is no default payment method now");
  }
  if (parts.length === 0) return "Nothing changed: these were already the saved settings.";
  const said = parts.join(", and ");
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}; API requests that leave it out use it from this moment.`;
}
