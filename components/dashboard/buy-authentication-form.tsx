"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { SubmitButton } from "@/components/ui/submit-button";

export type AuthenticationFormState = { ok: true } | { ok: false; error: string } | null;

/**
 * The cardholder's authentication step. With the simulated provider (`simulate`): complete it (the
 * payment is taken and the Points credited) or fail it (nothing is taken). With a real provider
 * (`redirect`): one button that sends the cardholder to the bank's page. Buttons disable while sent.
 */
export function BuyAuthenticationForm({
  action,
  topUpId,
  mode = "simulate",
}: {
  action: (state: AuthenticationFormState, formData: FormData) => Promise<AuthenticationFormState>;
  topUpId: string;
  mode?: "simulate" | "redirect";
}) {
  const [state, formAction] = useActionState(action, null);
  return (
    <form action={formAction} className="space-y-3">
      <input type="hidden" name="top_up_id" value={topUpId} />
      {state && !state.ok && <Alert tone="error">{state.error}</Alert>}
      {mode === "redirect" ? (
        <SubmitButton pendingLabel="Opening the bank's page…">Complete payment</SubmitButton>
      ) : (
        <div className="flex flex-wrap gap-3">
          <SubmitButton name="outcome" value="succeed" pendingLabel="Confirming…">
            Complete authentication
          </SubmitButton>
          <SubmitButton name="outcome" value="fail" variant="secondary" pendingLabel="Confirming…">
            Fail authentication
          </SubmitButton>
        </div>
      )}
    </form>
  );
}
