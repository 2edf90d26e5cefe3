import type { ComponentProps } from "react";
import { BuyAuthenticationForm } from "@/components/dashboard/buy-authentication-form";
import { BuyPurchaseForm } from "@/components/dashboard/buy-purchase-form";
import type { TopUp } from "@/lib/db/schema";

export type PurchaseFormAction = ComponentProps<typeof BuyPurchaseForm>["action"];
export type AuthenticationFormAction = ComponentProps<typeof BuyAuthenticationForm>["action"];

/**
 * A purchase awaiting the cardholder: members are told an admin finishes it; admins act as the
 * cardholder in test mode (`simulated`), else are sent to the bank's own page.
 */
export function PurchaseAuthentication({
  topUpId,
  isAdmin,
  organizationName,
  simulated,
  complete,
  startWithProvider,
}: {
  topUpId: string;
  isAdmin: boolean;
  organizationName: string;
  simulated: boolean;
  complete: AuthenticationFormAction;
  startWithProvider: AuthenticationFormAction;
}) {
  if (!isAdmin) return <p>An admin of {organizationName} can complete the authentication.</p>;
  if (simulated) {
    return (
      <div className="space-y-3">
        <p className="font-medium">
          Test mode: act as the cardholder and complete or fail the bank&apos;s authentication step.
        </p>
        <BuyAuthenticationForm action={complete} topUpId={topUpId} />
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <p>The card&apos;s bank asks the cardholder to confirm this payment on its own page; you come back here after.</p>
      <BuyAuthenticationForm action={startWithProvider} topUpId={topUpId} mode="redirect" />
    </div>
  );
}

/** "Check again now" for a purchase with no final answer yet: the same purchase sent again, which charges nothing. */
export function CheckAgainForm({ topUp, action }: { topUp: TopUp; action: PurchaseFormAction }) {
  return (
    <BuyPurchaseForm
      action={action}
      fields={{
        points: topUp.points,
        currency: topUp.currency,
        paymentSourceId: topUp.paymentSourceId,
        reference: topUp.reference,
      }}
      check
      submitLabel="Check again now"
      pendingLabel="Checking…"
      variant="secondary"
    />
  );
}
