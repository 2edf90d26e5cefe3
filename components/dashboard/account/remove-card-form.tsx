"use client";

import { useActionState } from "react";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/dashboard/action-state";

type RemoveCardState = ActionState;

/**
 * Remove card: success leaves the page (the action redirects, and the page says so); a refusal
 * (removed already in another tab, say) is said here, beside the button, with the card's label.
 */
export function RemoveCardForm({
  paymentMethodId,
  label,
  action,
}: {
  paymentMethodId: string;
  label: string;
  action: (state: RemoveCardState, data: FormData) => Promise<RemoveCardState>;
}) {
  const [state, formAction] = useActionState(action, null);
  return (
    <form action={formAction} className="flex flex-col items-start gap-1 sm:items-end">
      <input type="hidden" name="payment_method_id" value={paymentMethodId} />
      <SubmitButton variant="ghost" pendingLabel="Removing…" label={`Remove ${label}`}>
        Remove
      </SubmitButton>
      {state && !state.ok && (
        <p role="alert" className="text-xs font-medium text-rose-700">
          {label}: {state.error}
        </p>
      )}
    </form>
  );
}
