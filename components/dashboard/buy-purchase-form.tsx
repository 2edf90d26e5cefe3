"use client";

import Link from "next/link";
import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { SubmitButton } from "@/components/ui/submit-button";

/** What the purchase action answers when it does not redirect to the purchase's outcome. */
export type PurchaseFormState =
  | { ok: true }
  | {
      ok: false;
      error: string;
      fields?: Record<string, string>;
      /** The purchase this form's reference already belongs to, when it was used for another one. */
      existingTopUpId?: string;
    }
  | null;

export interface PurchaseFields {
  points: number;
  currency: string;
  paymentSourceId: string;
  reference: string;
}

/**
 * Sends one purchase. The reference travels in a hidden field, so a double click, a re-send after
 * a network error or a second "Buy" on a stale page all ask for the same purchase: the service
 * answers them with the first one and never charges twice. The button disables itself while sent.
 */
export function BuyPurchaseForm({
  action,
  fields,
  submitLabel,
  pendingLabel = "Processing payment…",
  variant = "primary",
  fullWidth = false,
  check = false,
}: {
  action: (state: PurchaseFormState, formData: FormData) => Promise<PurchaseFormState>;
  fields: PurchaseFields;
  submitLabel: string;
  pendingLabel?: string;
  variant?: "primary" | "secondary";
  fullWidth?: boolean;
  /** "Check again now" on the purchase's page: the same purchase sent again to learn its outcome, said as such. */
  check?: boolean;
}) {
  // The server action itself, not a wrapper: React then renders a form that also works before
  // (or without) JavaScript. A lost answer is caught by app/(dashboard)/dashboard/buy/error.tsx.
  const [state, formAction] = useActionState(action, null);
  return (
    <form
      action={formAction}
      className={`space-y-4 ${fullWidth ? "[&_button]:w-full" : ""}`}
      data-testid="purchase-form"
    >
      <input type="hidden" name="points" value={fields.points} />
      <input type="hidden" name="currency" value={fields.currency} />
      <input type="hidden" name="payment_source_id" value={fields.paymentSourceId} />
      <input type="hidden" name="reference" value={fields.reference} />
      {check && <input type="hidden" name="check" value="1" />}
      {state && !state.ok && (
        <Alert tone="error" title="The purchase was not made">
          <p>{state.error}</p>
          {state.fields && Object.keys(state.fields).length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {Object.entries(state.fields).map(([name, why]) => (
                <li key={name}>
                  <span className="font-mono">{name}</span> {why}
                </li>
              ))}
            </ul>
          )}
          {state.existingTopUpId && (
            <p className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
              <Link className="font-semibold underline" href={`/dashboard/history/${state.existingTopUpId}`}>
                See that purchase
              </Link>
              <Link className="font-semibold underline" href="/dashboard/buy">
                Start a new purchase
              </Link>
            </p>
          )}
        </Alert>
      )}
      <SubmitButton pendingLabel={pendingLabel} variant={variant}>
        {submitLabel}
      </SubmitButton>
    </form>
  );
}
