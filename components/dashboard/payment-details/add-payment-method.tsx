import type { ComponentProps } from "react";
import { AddCardCheckoutForm } from "@/components/dashboard/account/add-card-checkout-form";
import { AddTestCardForm } from "@/components/dashboard/account/add-test-card-form";
import { ReadOnlyNotice } from "@/components/dashboard/account/read-only-notice";
import { Card } from "@/components/ui/card";
import { TEST_CARD_CHOICES } from "@/lib/points/cards/test-cards";

export interface AddPaymentMethodState {
  /** Test cards are added here (the simulated provider); otherwise through Stripe Checkout. */
  testCards: boolean;
  /** The test-card kinds already saved: each can be saved once. */
  saved: string[];
}

export interface AddPaymentMethodActions {
  addTestCard: ComponentProps<typeof AddTestCardForm>["action"];
  addWithCheckout: ComponentProps<typeof AddCardCheckoutForm>["action"];
}

/** The "Add a payment method" card: a test card to choose, or off to Stripe Checkout. */
export function AddPaymentMethod({
  testCards,
  saved,
  canEdit,
  actions,
}: AddPaymentMethodState & { canEdit: boolean; actions: AddPaymentMethodActions }) {
  return (
    <Card
      title="Add a payment method"
      description={
        testCards
          ? "This deployment uses the built-in simulated billing provider: choose a test card. Each behaves like Stripe's card of the same name."
          : "Cards are added through a secure Stripe Checkout page."
      }
    >
      {!canEdit && (
        <div className="mb-4">
          <ReadOnlyNotice what="the payment methods" />
        </div>
      )}
      {testCards ? (
        <AddTestCardForm choices={TEST_CARD_CHOICES} saved={saved} canEdit={canEdit} action={actions.addTestCard} />
      ) : (
        <AddCardCheckoutForm canEdit={canEdit} action={actions.addWithCheckout} />
      )}
    </Card>
  );
}
