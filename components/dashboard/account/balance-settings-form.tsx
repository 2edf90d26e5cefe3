"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { BUNDLES, type Bundle } from "@/lib/catalog";
import type { ActionState } from "@/lib/dashboard/action-state";
import { formatPoints } from "@/lib/format";
import { autoRechargeSentence } from "@/lib/points/recharge/balance-alerts";
import { useFormAction } from "./use-form-action";
import { useLeaveGuard } from "./use-leave-guard";

/** The saved balance settings as the form's fields hold them: numbers as text, "" for none. */
export interface BalanceSettingsFormValues {
  lowBalanceThreshold: string;
  autoRechargeEnabled: boolean;
  autoRechargeBelow: string;
  autoRechargePoints: string;
  autoRechargeMonthlyMax: string;
}

type SaveState = ActionState<{ autoRechargeEnabled: boolean }>;
type TextField = Exclude<keyof BalanceSettingsFormValues, "autoRechargeEnabled">;
const TEXT_FIELDS: TextField[] = [
  "lowBalanceThreshold",
  "autoRechargeBelow",
  "autoRechargePoints",
  "autoRechargeMonthlyMax",
];

const digits = (value: string) => value.replaceAll(",", "").trim();

/**
 * What saving the fields would do, in the words Settings and the Overview use; undefined while a
 * filled field is not a whole number (the server's check words that, on save).
 */
function previewOf(values: BalanceSettingsFormValues): string | undefined {
  const texts = [values.lowBalanceThreshold, values.autoRechargeBelow, values.autoRechargeMonthlyMax];
  if (texts.some((value) => digits(value) !== "" && !/^\d+$/.test(digits(value)))) return undefined;
  const count = (value: string) => (digits(value) === "" ? null : Number(digits(value)));
  const sentence = autoRechargeSentence({
    enabled: values.autoRechargeEnabled,
    below: count(values.autoRechargeBelow),
    points: (count(values.autoRechargePoints) as Bundle | null) ?? null,
    monthlyMax: count(values.autoRechargeMonthlyMax),
  });
  if (sentence) return sentence;
  return values.autoRechargeEnabled
    ? "choose the level and the bundle to turn auto-recharge on."
    : "auto-recharge is off.";
}

/**
 * Settings → Balance alerts and auto-recharge. Controlled, like the Settings form, so that it can
 * say when what is on screen differs from what is saved, and what saving it would do.
 */
export function BalanceSettingsForm({
  saved,
  paused,
  canEdit,
  action,
}: {
  saved: BalanceSettingsFormValues;
  /** Auto-recharge is paused: saving (even unchanged) resumes it. */
  paused: boolean;
  canEdit: boolean;
  action: (state: SaveState, data: FormData) => Promise<SaveState>;
}) {
  const { state, pending, onSubmit } = useFormAction(action, null);
  const [values, setValues] = useState(saved);
  // "1,000" typed and 1000 saved are the same: compare what the server would read.
  const dirty =
    values.autoRechargeEnabled !== saved.autoRechargeEnabled ||
    TEXT_FIELDS.some((key) => digits(values[key]) !== digits(saved[key]));
  const fields = state && !state.ok ? (state.fields ?? {}) : {};
  useLeaveGuard(dirty && !pending, "Your balance alert changes are not saved. Leave this page without saving them?");
  const set = (key: TextField) => (event: { target: { value: string } }) =>
    setValues((now) => ({ ...now, [key]: event.target.value }));
  const described = (key: TextField) => ({
    "aria-invalid": fields[key] ? true : undefined,
    "aria-describedby": fields[key] ? `${key}-error` : `${key}-hint`,
  });
  const preview = previewOf(values);
  const locked = !canEdit || pending;

  return (
    <form
      onSubmit={onSubmit}
      className="space-y-6"
      aria-describedby={canEdit ? undefined : "balance-settings-readonly"}
    >
      {state?.ok && !dirty && (
        <Alert tone="success" title="Balance settings saved">
          {state.autoRechargeEnabled ? "Auto-recharge is on from this moment." : "Auto-recharge is off."}
        </Alert>
      )}
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}

      <fieldset disabled={locked} className="space-y-6 disabled:opacity-75">
        <legend className="sr-only">Balance alerts and auto-recharge</legend>
        <div className="sm:w-1/2">
          <Field
            id="lowBalanceThreshold"
            label="Low-balance alert (Points)"
            hint="Below this, the Overview and the header say the balance is low. Leave empty for no alert."
            error={fields.lowBalanceThreshold}
          >
            <Input
              id="lowBalanceThreshold"
              name="lowBalanceThreshold"
              inputMode="numeric"
              autoComplete="off"
              placeholder="None"
              value={values.lowBalanceThreshold}
              onChange={set("lowBalanceThreshold")}
              {...described("lowBalanceThreshold")}
            />
          </Field>
        </div>

        <label className="flex cursor-pointer items-start justify-between gap-6 rounded-lg border border-slate-200 p-4 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-600">
          <span>
            <span className="block text-sm font-medium text-slate-900">Auto-recharge</span>
            <span className="mt-1 block text-sm text-slate-600">
              Buy a bundle on your default card when a spend takes the balance below a level. Turning it off stops new
              purchases; it does not cancel a charge already sent.
            </span>
          </span>
          <input
            type="checkbox"
            role="switch"
            aria-checked={values.autoRechargeEnabled}
            name="autoRechargeEnabled"
            checked={values.autoRechargeEnabled}
            onChange={(event) => setValues((now) => ({ ...now, autoRechargeEnabled: event.target.checked }))}
            className="peer sr-only"
          />
          <span
            aria-hidden="true"
            className="relative mt-0.5 inline-flex h-6 w-11 shrink-0 rounded-full bg-slate-300 transition-colors after:absolute after:left-0.5 after:top-0.5 after:h-5 after:w-5 after:rounded-full after:bg-white after:shadow after:transition-transform after:content-[''] peer-checked:bg-indigo-600 peer-checked:after:translate-x-5"
          />
        </label>

        <div className="grid gap-6 sm:grid-cols-3">
          <Field
            id="autoRechargeBelow"
            label="When the balance falls below (Points)"
            hint="Needed to turn auto-recharge on."
            error={fields.autoRechargeBelow}
          >
            <Input
              id="autoRechargeBelow"
              name="autoRechargeBelow"
              inputMode="numeric"
              autoComplete="off"
              value={values.autoRechargeBelow}
              onChange={set("autoRechargeBelow")}
              {...described("autoRechargeBelow")}
            />
          </Field>
          <Field
            id="autoRechargePoints"
            label="Buy this bundle"
            hint="One bundle per crossing."
            error={fields.autoRechargePoints}
          >
            <Select
              id="autoRechargePoints"
              name="autoRechargePoints"
              value={values.autoRechargePoints}
              onChange={set("autoRechargePoints")}
              {...described("autoRechargePoints")}
            >
              <option value="">Choose a bundle</option>
              {BUNDLES.map((bundle) => (
                <option key={bundle} value={String(bundle)}>
                  {formatPoints(bundle)} Points
                </option>
              ))}
            </Select>
          </Field>
          <Field
            id="autoRechargeMonthlyMax"
            label="Monthly cap (Points)"
            hint="At most this many Points a calendar month (UTC). Leave empty for no cap."
            error={fields.autoRechargeMonthlyMax}
          >
            <Input
              id="autoRechargeMonthlyMax"
              name="autoRechargeMonthlyMax"
              inputMode="numeric"
              autoComplete="off"
              placeholder="No cap"
              value={values.autoRechargeMonthlyMax}
              onChange={set("autoRechargeMonthlyMax")}
              {...described("autoRechargeMonthlyMax")}
            />
          </Field>
        </div>
        {dirty && (
          <p className="text-sm text-slate-700" data-testid="balance-settings-preview">
            {preview === undefined ? "Levels, bundles and caps are whole numbers of Points." : `Once saved: ${preview}`}
          </p>
        )}
      </fieldset>

      <div className="flex flex-wrap items-center gap-3 border-t border-slate-100 pt-4">
        <Button type="submit" disabled={!canEdit || pending}>
          {pending ? "Saving…" : paused && !dirty ? "Save and resume auto-recharge" : "Save balance settings"}
        </Button>
        {canEdit ? (
          <p className="text-sm text-slate-600" role="status">
            {dirty ? (
              <span className="font-medium text-amber-800">Unsaved changes: what is saved still applies.</span>
            ) : (
              "No unsaved changes."
            )}
          </p>
        ) : (
          <p id="balance-settings-readonly" className="text-sm text-slate-600">
            Only an admin can change balance alerts and auto-recharge.
          </p>
        )}
      </div>
    </form>
  );
}
