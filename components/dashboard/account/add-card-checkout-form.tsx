"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/dashboard/action-state";

type AddCardState = ActionState<{ label: string }>;

/** With Stripe: one button to Stripe Checkout's page, where the admin enters the card. */
export function AddCardCheckoutForm({
  canEdit,
  action,
}: {
  canEdit: boolean;
  action: (state: AddCardState, data: FormData) => Promise<AddCardState>;
}) {
  const [state, formAction] = useActionState(action, null);
  return (
    <form action={formAction} className="space-y-3">
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      <fieldset disabled={!canEdit}>
        <SubmitButton variant="secondary" pendingLabel="Opening Stripe Checkout…">
          Add a card with Stripe Checkout
        </SubmitButton>
      </fieldset>
    </form>
  );
}
